/// Standard base64 (RFC 4648 §4), how Engine.IO's polling transport carries binary messages in a text
/// body. Written here so the module needs no Foundation for two small loops.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each ASCII byte's 6-bit value; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    /// Appends the base64 of `bytes`, padded with `=`.
    static func encode(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + (bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            output.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
    }

    /// The bytes of base64 text, padded or not; nil when it is not base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = values[Int(byte)]
            guard value != 0xFF, padding == 0 else { return nil }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                output.append(UInt8(group >> 16 & 0xFF))
                output.append(UInt8(group >> 8 & 0xFF))
                output.append(UInt8(group & 0xFF))
                group = 0
                count = 0
            }
        }
        switch count {
        case 0: guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            output.append(UInt8(group >> 4 & 0xFF))
        case 3:
            guard padding <= 1 else { return nil }
            output.append(UInt8(group >> 10 & 0xFF))
            output.append(UInt8(group >> 2 & 0xFF))
        default: return nil
        }
        return output
    }
}
