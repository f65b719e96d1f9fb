import Foundation

/// A batch of work done on every core while the caller gets on with something else (reading the next
/// batch, inserting the one before), its results handed back in input order. Imports use it to decode
/// PBF blocks and to prepare places ahead of the one thread that writes to SQLite.
final class ParallelBatch<Output: Sendable>: @unchecked Sendable {
    // Each task writes only its own slot of `outputs`; `wait()` reads them after the group is left.
    private var outputs: [Output?]
    private let group = DispatchGroup()

    private init(count: Int) {
        outputs = Array(repeating: nil, count: count)
    }

    /// Starts `transform` over `inputs` in chunks on the global queue and returns at once.
    static func start<Input: Sendable>(_ inputs: [Input], _ transform: @escaping @Sendable (Input) -> Output) -> ParallelBatch {
        let batch = ParallelBatch(count: inputs.count)
        let group = batch.group
        group.enter()
        DispatchQueue.global().async {
            batch.outputs.withUnsafeMutableBufferPointer { slots in
                let slots = UnsafeSlots(slots)
                let chunks = min(inputs.count, processorCount * 4)
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    var i = inputs.count * chunk / chunks
                    while i < inputs.count * (chunk + 1) / chunks {
                        slots.base[i] = transform(inputs[i])
                        i += 1
                    }
                }
            }
            group.leave()
        }
        return batch
    }

    /// The outputs in input order, once every one is done.
    func wait() -> [Output] {
        group.wait()
        return outputs.map { $0! }
    }

    private struct UnsafeSlots: @unchecked Sendable {
        let base: UnsafeMutableBufferPointer<Output?>
        init(_ base: UnsafeMutableBufferPointer<Output?>) { self.base = base }
    }
}

/// The processors this process may use, asked once: Foundation reads them from `/proc` and the cgroup files on every
/// call (an `open`, a `read` and a `malloc`), and ``ParallelBatch`` asked for each batch. A global: a generic class
/// cannot have a static stored property.
private let processorCount = ProcessInfo.processInfo.activeProcessorCount
