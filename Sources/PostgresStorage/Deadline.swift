/// Runs `work` in a task of its own and returns what it returns, or throws `expired()` once `limit` has passed; the
/// caller's cancellation cancels `work` and ends the wait at once.
///
/// Unlike a race in a task group, which returns only when every child has finished, the caller does not wait for
/// `work` to act on its cancellation: work that ignores cancellation, or takes a while to clean up after it, goes on
/// alone while the caller has its answer at the deadline.
func outcome<T: Sendable>(within limit: Duration, else expired: @escaping @Sendable () -> any Error,
                          of work: @escaping @Sendable () async throws -> T) async throws -> T {
    let (first, settle) = AsyncThrowingStream.makeStream(of: T.self)
    let timer = Task {
        do { try await Task.sleep(for: limit) } catch { return }  // cancelled: the wait is over
        settle.finish(throwing: expired())
    }
    let running = Task {
        do {
            settle.yield(try await work())
            settle.finish()
        } catch {
            settle.finish(throwing: error)
        }
    }
    // Whatever ended the wait (an answer, an error, the deadline, the caller's cancellation), neither task outlives it
    // but for `work`'s own clean-up.
    defer {
        running.cancel()
        timer.cancel()
    }
    for try await answer in first { return answer }
    throw CancellationError()  // the stream ends without an answer only when the caller was cancelled
}
