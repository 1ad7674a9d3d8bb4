/// Mutates sample packets for the fuzz test: bit flips, bytes set, inserted and deleted, splices from
/// another sample, copies within the packet (references and counts then point elsewhere), AMF markers,
/// and U29 values at their edges written over the bytes.
struct SampleMutator {
    var random: SplitMix64
    let samples: [[UInt8]]

    /// U29 values where decoders go wrong: the widths' edges, the flag bits, the largest.
    static let edgeValues: [UInt32] = [
        0, 1, 2, 3, 4, 5, 7, 0x0B, 0x7F, 0x80, 0x3FFF, 0x4000, 0x1F_FFFF, 0x20_0000, 0x0FFF_FFFF, 0x1000_0000,
        0x1FFF_FFFF,
    ]

    /// A sample with one to four mutations.
    mutating func next() -> [UInt8] {
        var bytes = samples[random.below(samples.count)]
        for _ in 0...random.below(4) { mutate(&bytes) }
        return bytes
    }

    mutating func mutate(_ bytes: inout [UInt8]) {
        let position = random.below(bytes.count + 1)
        let inside = min(position, max(bytes.count - 1, 0))
        switch random.below(8) {
        case 0 where !bytes.isEmpty: bytes[inside] ^= 1 << UInt8(random.below(8))
        case 1 where !bytes.isEmpty: bytes[inside] = UInt8(truncatingIfNeeded: random.next())
        case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        case 3 where !bytes.isEmpty:
            bytes.removeSubrange(inside..<min(bytes.count, inside + 1 + random.below(8)))
        case 4:
            let other = samples[random.below(samples.count)]
            let start = random.below(other.count)
            let chunk = other[start..<min(other.count, start + 1 + random.below(64))]
            bytes.replaceSubrange(position..<min(bytes.count, position + random.below(64)), with: chunk)
        case 5 where !bytes.isEmpty:
            let start = random.below(bytes.count)
            let chunk = bytes[start..<min(bytes.count, start + 1 + random.below(32))]
            bytes.insert(contentsOf: chunk, at: position)
        case 6 where !bytes.isEmpty: bytes[inside] = UInt8(random.below(0x13))
        default:
            let value =
                random.below(2) == 0
                ? Self.edgeValues[random.below(Self.edgeValues.count)] : UInt32(truncatingIfNeeded: random.next()) & 0x1FFF_FFFF
            let encoded = Self.u29(value)
            bytes.replaceSubrange(position..<min(bytes.count, position + encoded.count), with: encoded)
        }
    }

    /// A U29's bytes, as the specification writes it.
    static func u29(_ value: UInt32) -> [UInt8] {
        switch value {
        case ..<0x80: [UInt8(value)]
        case ..<0x4000: [UInt8(value >> 7 | 0x80), UInt8(value & 0x7F)]
        case ..<0x20_0000: [UInt8(value >> 14 | 0x80), UInt8(value >> 7 & 0x7F | 0x80), UInt8(value & 0x7F)]
        default:
            [UInt8(value >> 22 | 0x80), UInt8(value >> 15 & 0x7F | 0x80), UInt8(value >> 8 & 0x7F | 0x80), UInt8(value & 0xFF)]
        }
    }
}
