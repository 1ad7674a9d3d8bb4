/// FCM-shaped registration tokens made from a number: an instance id, `:APA91b`, then base64url
/// characters, 163 in all as real ones are, distinct per number and the same on every run (no
/// randomness to pay for), so `populate` and `fcm` send bodies of a real token's size.
enum FCMBenchToken {
    static let length = 163

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// What follows the instance id: `:APA91b` and 134 scattered characters, the same for every token.
    private static let tail: [UInt8] = {
        var bytes = Array(":APA91b".utf8)
        var state: UInt64 = 0x5EED
        while bytes.count < length - 22 {
            state &+= 1
            var bits = PopulationPlan.mix(state)
            for _ in 0..<10 where bytes.count < length - 22 {
                bytes.append(alphabet[Int(bits & 63)])
                bits >>= 6
            }
        }
        return bytes
    }()

    /// The instance id (22 characters: 11 scattered from the number, then the number itself in base 64,
    /// which makes tokens distinct) before the shared tail, written straight into the string's storage:
    /// the C reference sends one fixed body, so making tokens should cost the client's figures next to
    /// nothing (drawing all 163 characters cost about 2,300 instructions a token under callgrind).
    static func make(_ n: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            alphabet.withUnsafeBufferPointer { alphabet in
                var scattered = PopulationPlan.mix(UInt64(truncatingIfNeeded: n))
                var number = UInt64(truncatingIfNeeded: n)
                for position in 0..<11 {
                    buffer[position] = alphabet[Int(scattered & 63)]
                    buffer[position + 11] = alphabet[Int(number & 63)]
                    scattered >>= 6
                    number >>= 6
                }
            }
            tail.withUnsafeBufferPointer { tail in
                _ = UnsafeMutableBufferPointer(rebasing: buffer[22..<length]).initialize(from: tail)
            }
            return length
        }
    }
}
