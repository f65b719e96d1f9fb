import CMallocSettings
import Dispatch
import Synchronization

/// Gives the memory malloc holds free back to the system when the server has no client left. A burst of
/// connections leaves freed memory in malloc's arenas (jemalloc's in `places`, see Package.swift), which it keeps
/// resident: after `bench/soak.sh`'s minute of mixed traffic the server held 104–114 MB at rest (issue 16 asks for
/// under 100 MB; 68–77 MB with jemalloc, 45 s of `bench/soak.sh`, twice). Trimming costs a walk over the
/// arenas, so it runs off the event loops, at most once per `minimumInterval`; a server that goes idle again sooner
/// is trimmed once that interval has passed.
final class IdleMemoryRelease: Sendable {
    /// One per process: malloc's arenas are the process's.
    static let shared = IdleMemoryRelease(minimumInterval: .seconds(10)) { _ = places_release_free_malloc_memory() }

    private let minimumInterval: DispatchTimeInterval
    private let release: @Sendable () -> Void
    /// When the last release ran (on the clock the releases are scheduled by), and whether one is scheduled.
    private let state = Mutex<(last: DispatchTime?, pending: Bool)>((nil, false))

    /// - Parameter release: what gives the memory back (jemalloc's purge, or glibc's `malloc_trim`; a test counts the calls).
    init(minimumInterval: DispatchTimeInterval, release: @escaping @Sendable () -> Void) {
        self.minimumInterval = minimumInterval
        self.release = release
    }

    /// The last client left.
    func serverBecameIdle() {
        let due: DispatchTime? = state.withLock { state in
            if state.pending { return nil }
            state.pending = true
            let now = DispatchTime.now()
            guard let last = state.last else { return now }
            return max(now, last + minimumInterval)
        }
        guard let due else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: due) { [self] in
            state.withLock { $0 = (.now(), false) }
            release()
        }
    }
}
