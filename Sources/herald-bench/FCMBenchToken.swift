/// FCM-shaped registration tokens made from a number: an instance id, `:APA91b`, then base64url
/// characters, 163 in all as real ones are, distinct per number and the same on every run (no
/// randomness to pay for), so `populate` and `fcm` send bodies of a real token's size.
enum FCMBenchToken {
    static let length = 163

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Written straight into the string's storage: the C reference sends one fixed body, so making tokens
    /// should cost the client's figures next to nothing.
    static func make(_ n: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            // 256 mixer inputs per number, more than one token draws (each gives ten characters).
            var state = UInt64(truncatingIfNeeded: n) << 8
            var position = 0
            func append(_ count: Int) {
                var bits: UInt64 = 0
                var left = 0
                for _ in 0..<count {
                    if left < 6 {
                        state &+= 1
                        bits = PopulationPlan.mix(state)
                        left = 64
                    }
                    buffer[position] = alphabet[Int(bits & 63)]
                    position += 1
                    bits >>= 6
                    left -= 6
                }
            }
            append(22)
            for byte in ":APA91b".utf8 {
                buffer[position] = byte
                position += 1
            }
            append(length - position)
            return position
        }
    }
}
