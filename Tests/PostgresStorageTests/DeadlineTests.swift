import Foundation
@testable import PostgresStorage
import Synchronization
import Testing

struct DeadlineTests {
    struct Expired: Error, Equatable {}

    /// Work that ignores cancellation, as a query to a server that stopped answering does: held until the test lets it go.
    final class Gate: Sendable {
        private enum State { case closed, waiting(CheckedContinuation<Void, Never>), open }
        private let state = Mutex(State.closed)
        func pass() async {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state in
                    if case .open = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if isOpen { continuation.resume() }
            }
        }
        func open() {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state = .open }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiting?.resume()
        }
    }

    @Test func anAnswerInTimeIsReturned() async throws {
        #expect(try await outcome(within: .seconds(600), else: { Expired() }) { 7 } == 7)
    }

    @Test func theWorksErrorIsThrown() async throws {
        await #expect(throws: CocoaError.self) {
            try await outcome(within: .seconds(600), else: { Expired() }) { () async throws -> Int in throw CocoaError(.fileNoSuchFile) }
        }
    }

    @Test func workThatIgnoresCancellationDoesNotHoldTheCallerPastTheDeadline() async throws {
        let gate = Gate()
        defer { gate.open() }
        await #expect(throws: Expired.self) {
            try await outcome(within: .milliseconds(50), else: { Expired() }) { () async -> Int in
                await gate.pass()
                return 1
            }
        }
    }

    @Test func theCallersCancellationEndsTheWaitAtOnce() async throws {
        let gate = Gate()
        defer { gate.open() }
        let waiting = Task {
            try await outcome(within: .seconds(600), else: { Expired() }) { () async -> Int in
                await gate.pass()
                return 1
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func anObjectionEndsTheWaitWithItsError() async throws {
        let gate = Gate()
        defer { gate.open() }
        await #expect(throws: CocoaError.self) {
            try await outcome(within: .seconds(600), else: { Expired() }, unless: { CocoaError(.fileReadNoPermission) }) { () async -> Int in
                await gate.pass()
                return 1
            }
        }
    }

    @Test func anObjectionWithoutAnErrorLeavesTheAnswer() async throws {
        #expect(try await outcome(within: .seconds(600), else: { Expired() }, unless: { nil }) { 7 } == 7)
    }
}
