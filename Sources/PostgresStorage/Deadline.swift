/// Runs `work` in a task of its own and returns what it returns, or throws `expired()` once `limit` has passed, or
/// what `unless` returns if it returns an error first; the caller's cancellation cancels `work` and ends the wait at once.
///
/// Unlike a race in a task group, which returns only when every child has finished, the caller does not wait for
/// `work` to act on its cancellation: work that ignores cancellation, or takes a while to clean up after it, goes on
/// alone while the caller has its answer at the deadline.
func outcome<T: Sendable>(within limit: Duration, else expired: @escaping @Sendable () -> any Error,
                          unless: (@Sendable () async -> (any Error)?)? = nil,
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
    let objection = unless.map { unless in
        Task {
            if let error = await unless() { settle.finish(throwing: error) }
        }
    }
    // Whatever ended the wait (an answer, an error, the deadline, an objection, the caller's cancellation), no task
    // outlives it but for `work`'s own clean-up.
    defer {
        running.cancel()
        timer.cancel()
        objection?.cancel()
    }
    for try await answer in first { return answer }
    throw CancellationError()  // the stream ends without an answer only when the caller was cancelled
}
