/// A request body held once in unmovable memory, so libcurl can send it without a copy and one body
/// can be shared by every request of a fan-out.
public final class CurlBody: Sendable {
    // Both pointers are written once in init and only read afterwards (curl reads them on its
    // thread while a transfer runs), so sharing them across threads is safe.

    /// The bytes; valid while the body lives.
    public nonisolated(unsafe) let bytes: UnsafeMutableRawBufferPointer

    public init<Bytes: Collection<UInt8>>(_ json: Bytes) {
        // Never zero-sized, so the pointer is always valid for curl even for an (invalid) empty body.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(json.count, 1), alignment: 1)
        _ = buffer.initializeMemory(as: UInt8.self, from: json)
        bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<json.count])
        storage = buffer
    }

    /// The same for an array, the common case: one memory copy. (The generic initializer is not
    /// specialised for callers in other modules and copies byte by byte, which cost a fan-out that
    /// builds a body per device a tenth of its client's CPU.)
    public init(_ json: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(json.count, 1), alignment: 1)
        json.withUnsafeBytes { source in
            if let base = source.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<json.count])
        storage = buffer
    }

    public convenience init(string: String) { self.init(Array(string.utf8)) }

    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer

    deinit { storage.deallocate() }

    /// Size in bytes.
    public var count: Int { bytes.count }

    /// The body as text (for tests and logs of non-secret bodies).
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}
