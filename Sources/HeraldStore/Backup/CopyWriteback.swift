#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pushes a file that is being written to disk as it grows, so its dirty pages never pile up in the
/// page cache.
///
/// Left alone, the kernel keeps a backup's few hundred megabytes in memory and writes them all at the
/// final fsync: for seconds the disk's queue is full of them, and every fsync of the server's WAL
/// waits behind the lot (BENCHMARKS.md section 41). Written back a chunk at a time instead, at most
/// two chunks are queued when a server's commit arrives. On Linux the chunk's writeback is started
/// with `sync_file_range` and the previous chunk's is waited for (the writes overlap the copy, and no
/// journal commit is forced); elsewhere each chunk is `fdatasync`ed.
final class CopyWriteback {
    private let descriptor: Int32
    private let chunk: Int64
    /// Bytes before this offset have been handed to the disk.
    private var started: Int64 = 0
    /// The range handed to the disk last, not yet waited for.
    private var pending: (offset: Int64, length: Int64)?
    /// Chunks handed to the disk so far.
    private(set) var writebacks = 0

    /// Opens `path` (already created) for writing back; `chunk`: bytes written between two writebacks.
    init(path: String, chunk: Int) throws(BackupFailure) {
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw BackupFailure("cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
        }
        self.chunk = Int64(max(chunk, 4096))
    }

    deinit { close(descriptor) }

    /// Called after each step of the copy: once a chunk has been written since the last writeback,
    /// starts writing it and waits until the chunk before it is on disk.
    func advance() throws(BackupFailure) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot read the size of") }
        let size = Int64(status.st_size)
        guard size - started >= chunk else { return }
        try writeBack(from: started, to: size)
    }

    /// Writes back what is left; the caller's fsync then has little to do.
    func finish() throws(BackupFailure) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot read the size of") }
        try writeBack(from: started, to: Int64(status.st_size))
        try wait()
    }

    private func writeBack(from offset: Int64, to end: Int64) throws(BackupFailure) {
        guard end > offset else { return }
        writebacks += 1
        #if os(Linux)
        if let syncFileRange = Self.syncFileRange {
            guard syncFileRange(descriptor, offset, end - offset, Self.write) == 0 else { throw failure("cannot write back") }
            try wait()
            pending = (offset, end - offset)
            started = end
            return
        }
        #endif
        guard fdatasync(descriptor) == 0 else { throw failure("cannot sync") }
        started = end
    }

    /// Waits until the range handed to the disk last is written.
    private func wait() throws(BackupFailure) {
        #if os(Linux)
        guard let (offset, length) = pending, let syncFileRange = Self.syncFileRange else { return }
        pending = nil
        guard syncFileRange(descriptor, offset, length, Self.waitBefore | Self.write | Self.waitAfter) == 0 else {
            throw failure("cannot write back")
        }
        #endif
    }

    private func failure(_ what: String) -> BackupFailure {
        BackupFailure("\(what) the copy: \(String(cString: strerror(errno)))")
    }

    #if os(Linux)
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    // `<fcntl.h>` declares sync_file_range only under _GNU_SOURCE, which Swift's Glibc module does not
    // define; the function is in every glibc since 2.6, so it is looked up by name once.
    private static let syncFileRange: SyncFileRange? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")
        .map { unsafeBitCast($0, to: SyncFileRange.self) }
    private static let waitBefore: UInt32 = 1
    private static let write: UInt32 = 2
    private static let waitAfter: UInt32 = 4
    #endif
}
