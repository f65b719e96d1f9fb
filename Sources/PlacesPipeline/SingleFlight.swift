/// Shares one in-flight computation between concurrent callers asking for the same key, so ten
/// simultaneous identical lookups make one upstream call, not ten.
actor SingleFlight<Value: Sendable> {
    private var inFlight: [String: Task<Value, any Error>] = [:]
    /// Callers now waiting on another caller's computation: what a test holding a computation open waits
    /// for before it lets it finish, so "they shared it" is proved without guessing how long joining takes.
    private(set) var followers = 0

    /// Runs `work` unless a computation for `key` is already running, in which case its result is shared.
    /// - Returns: the value and whether this caller was the one that ran it.
    func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> (Value, leader: Bool) {
        if let running = inFlight[key] {
            followers += 1
            defer { followers -= 1 }
            return (try await running.value, false)
        }
        let task = Task { try await work() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return (try await task.value, true)
    }
}
