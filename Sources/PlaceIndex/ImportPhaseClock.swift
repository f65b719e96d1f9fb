import Foundation

/// Wall time and CPU time (the writing thread's and the whole process's) of each phase of an import, one line
/// per phase on stderr when `PLACES_IMPORT_PHASES` is set: how the README's phase table for issue #18 was
/// measured, and how to see which phase a change moved. Silent otherwise.
struct ImportPhaseClock {
    static let variable = "PLACES_IMPORT_PHASES"
    private let enabled = ProcessInfo.processInfo.environment[Self.variable] != nil
    private var last: (wall: Double, thread: Double, process: Double)?

    mutating func mark(_ phase: String) {
        guard enabled else { return }
        let now = (wall: Self.seconds(CLOCK_MONOTONIC), thread: Self.seconds(CLOCK_THREAD_CPUTIME_ID), process: Self.seconds(CLOCK_PROCESS_CPUTIME_ID))
        if let last {
            let line = String(format: "places: phase %-12@ %7.3f s wall %7.3f s CPU (this thread) %7.3f s CPU (all threads)\n",
                              phase as NSString, now.wall - last.wall, now.thread - last.thread, now.process - last.process)
            FileHandle.standardError.write(Data(line.utf8))
        }
        last = now
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
