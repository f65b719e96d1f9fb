import NIOCore
import Testing
@testable import RESP

@Suite struct RESPFrameTests {
    private func located(_ text: String) -> RESPFrame? { RESPFrame.atFront(of: ByteBuffer(string: text)) }

    @Test("a complete request written plainly is located: its length and its command name")
    func plainCompleteRequestsAreLocated() {
        // Lengths counted by hand: "*2\r\n" 4, "$4\r\n" 4, "ECHO\r\n" 6, "$0\r\n" 4, "\r\n" 2.
        #expect(located("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*1") == RESPFrame(length: 20, command: .init(start: 8, length: 4)))
        #expect(located("*1\r\n$4\r\nPING\r\n") == RESPFrame(length: 14, command: .init(start: 8, length: 4)))
        // Binary bytes inside an argument are counted by length, not scanned.
        #expect(located("*1\r\n$5\r\nA\r\n$1\r\n")?.length == 15)
        #expect(located("*1\r\n$10\r\n0123456789\r\n")?.command == .init(start: 9, length: 10))
    }

    @Test("anything incomplete, inline or written another way is left to the parser")
    func everythingElseIsLeftToTheParser() {
        for text in ["", "*", "*1\r\n", "*1\r\n$4\r\nPIN", "*1\r\n$4\r\nPING\r", "PING\r\n", "*0\r\n", "*-1\r\n",
                     "*1\r\n$04\r\nPING\r\n", "*01\r\n$4\r\nPING\r\n", "*1\r\n$4\r\nPINGx\n", "*1\r\n+4\r\nPING\r\n",
                     "*1\r\n$4\nPING\r\n", "*33\r\n", "*1\r\n$99999999\r\n", "*1\r\n$ 4\r\nPING\r\n", "*1\r\n$-1\r\n"] {
            #expect(located(text) == nil, "\(text.debugDescription)")
        }
    }
}
