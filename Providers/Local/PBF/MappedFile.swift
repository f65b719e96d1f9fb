import Foundation
import PlacesCore

/// A file mapped read-only into memory, whose pages the reader hands back once it has read past them:
/// a file-backed page the process touched counts against its resident memory until then, so without
/// this a 2 GB extract would show as 2 GB of memory by the end of its import.
final class MappedFile: @unchecked Sendable {
    // Immutable after init; the pages are only read.
    let bytes: UnsafeRawBufferPointer

    /// Throws `InputError` naming the file when it cannot be opened or mapped.
    init(url: URL) throws {
        let fileName = url.lastPathComponent
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw InputError("\(fileName): cannot read the file (\(reason))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw InputError("\(fileName): cannot read the file (fstat failed)") }
        let size = Int(status.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let pointer = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), pointer != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            throw InputError("\(fileName): cannot read the file (\(reason))")
        }
        bytes = UnsafeRawBufferPointer(start: pointer, count: size)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    /// Lets the kernel drop the pages wholly before `offset` from this process (they are read again from
    /// the file if touched later).
    func release(before offset: Int) {
        guard let base = bytes.baseAddress else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = min(offset, bytes.count) / pageSize * pageSize
        if length > 0 { madvise(UnsafeMutableRawPointer(mutating: base), length, MADV_DONTNEED) }
    }
}
