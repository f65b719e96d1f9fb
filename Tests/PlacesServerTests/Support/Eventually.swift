import Foundation
import LoopbackSocket

/// Waits until `condition` holds, checking every 10 ms, and fails after `seconds`: for state that no
/// event announces (a counter the server updates when it reads bytes), without guessing a sleep. The deadline
/// only bounds a failure, so by default it is the sockets' hang guard.
func waitUntil(_ what: String, within seconds: Double = Double(LoopbackSocket.hangGuardSeconds),
               _ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { throw InputError("timed out after \(seconds) s waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
