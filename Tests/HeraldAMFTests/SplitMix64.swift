/// A small deterministic random number generator (SplitMix64, Steele, Lea and Flood 2014): the fuzz test
/// needs the same mutations from the same seed on every platform, which the system generator does not give.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in 0..<bound, from this generator alone.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
