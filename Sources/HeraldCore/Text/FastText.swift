import Foundation

extension String {
    /// Whether every UTF-8 byte passes `test`: over the string's own storage when it is contiguous (a native
    /// string), not a byte at a time through the UTF-8 view. Every send checks its device token and every
    /// registration its token and ids this way; the view's walk cost a few thousand instructions a call under
    /// callgrind (BENCHMARKS.md section 24).
    public func allUTF8Bytes(_ test: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? utf8.allSatisfy(test)
    }
}

extension UUID {
    /// `uuidString.lowercased()`, written straight into the string: Foundation formats each byte with
    /// `snprintf`, about 6,000 instructions a UUID, and a registration makes two or three (its ids).
    public var lowercasedText: String {
        let bytes = uuid
        return String(unsafeUninitializedCapacity: 36) { buffer in
            withUnsafeBytes(of: bytes) { raw in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = Self.hexDigits[Int(byte >> 4)]
                    buffer[position + 1] = Self.hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
