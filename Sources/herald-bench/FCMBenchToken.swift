/// FCM-shaped registration tokens made from a number: an instance id, `:APA91b`, then base64url
/// characters, 163 in all as real ones are, distinct per number and the same on every run (no
/// randomness to pay for), so `populate` and `fcm` send bodies of a real token's size.
enum FCMBenchToken {
    static let length = 163

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func make(_ n: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        // 256 mixer inputs per number, more than one token draws (each gives ten characters).
        var state = UInt64(truncatingIfNeeded: n) << 8
        func append(_ count: Int) {
            var bits: UInt64 = 0
            var left = 0
            for _ in 0..<count {
                if left < 6 {
                    state &+= 1
                    bits = PopulationPlan.mix(state)
                    left = 64
                }
                bytes.append(alphabet[Int(bits & 63)])
                bits >>= 6
                left -= 6
            }
        }
        append(22)
        bytes.append(contentsOf: ":APA91b".utf8)
        append(length - bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }
}
