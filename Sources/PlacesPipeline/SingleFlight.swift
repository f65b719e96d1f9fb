/// Shares one in-flight computation between concurrent callers asking for the same key, so ten
/// simultaneous identical lookups make one upstream call, not ten.
actor SingleFlight<Value: Sendable> {
    private var inFlight: [String: Task<Value, any Error>] = [:]

    /// Runs `work` unless a computation for `key` is already running, in which case its result is shared.
    /// - Returns: the value and whether this caller was the one that ran it.
    func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> (Value, leader: Bool) {
        if let running = inFlight[key] {
            return (try await running.value, false)
        }
        let task = Task { try await work() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return (try await task.value, true)
    }
}
