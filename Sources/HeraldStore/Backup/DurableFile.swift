import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-system steps that make a replaced file survive a crash: fsync the new file, rename it over
/// the old one (atomic: a reader sees the old file or the new, never a mix), fsync the directory so the
/// rename itself is on disk.
enum DurableFile {
    /// A name beside `path` for the file being written: same directory, so the rename stays atomic.
    static func partial(for path: String) -> String { "\(path).partial-\(getpid())" }

    /// Removes a partial file and the journal or WAL files SQLite may have left beside it.
    static func removeWithCompanions(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    static func sync(_ path: String, directory: Bool = false) throws(BackupFailure) {
        let descriptor = open(path, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
        guard descriptor >= 0 else { throw BackupFailure("cannot open \(path) to sync it: \(errorText())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BackupFailure("cannot sync \(path) to disk: \(errorText())") }
    }

    /// Renames `partial` over `target` and syncs the directory.
    ///
    /// With `releasingGradually`, a file `target` replaces is freed a slice at a time after the rename
    /// rather than all at once inside it: dropping the last name of a file of hundreds of megabytes
    /// makes the file system free all its blocks (and discard them, mounted with `discard`) in one
    /// go, which held the rename for 100–150 ms and the server's fsyncs with it (BENCHMARKS.md
    /// section 41). Held open, the replaced file is freed by truncating it from the end.
    static func replace(_ target: String, with partial: String, releasingGradually: Bool = false) throws(BackupFailure) {
        let replaced = releasingGradually ? open(target, O_WRONLY) : -1
        defer { if replaced >= 0 { close(replaced) } }
        guard rename(partial, target) == 0 else { throw BackupFailure("cannot rename \(partial) to \(target): \(errorText())") }
        try sync(directory(of: target), directory: true)
        if replaced >= 0 { release(replaced) }
    }

    /// Truncates a file that has no name left, 16 MiB at a time with a short pause between; a failure
    /// only leaves the rest to be freed at once when the descriptor closes.
    private static func release(_ descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_nlink == 0 else { return }
        var size = Int64(status.st_size)
        let slice: Int64 = 16 << 20
        while size > 0 {
            size = max(0, size - slice)
            guard ftruncate(descriptor, off_t(size)) == 0 else { return }
            usleep(2000)
        }
    }

    /// Copies `source` to a new file `destination` and syncs it; `permissions` nil: SQLite's own (0644 less the umask).
    static func copy(_ source: String, to destination: String, permissions: Int?) throws(BackupFailure) {
        guard let input = FileHandle(forReadingAtPath: source) else { throw BackupFailure("cannot read \(source)") }
        defer { try? input.close() }
        let attributes = permissions.map { [FileAttributeKey.posixPermissions: $0] }
        guard FileManager.default.createFile(atPath: destination, contents: nil, attributes: attributes),
            let output = FileHandle(forWritingAtPath: destination)
        else { throw BackupFailure("cannot create \(destination): \(errorText())") }
        defer { try? output.close() }
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
            try output.synchronize()
        } catch {
            throw BackupFailure("cannot copy \(source) to \(destination): \(error.localizedDescription)")
        }
    }

    static func directory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func permissions(of path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
