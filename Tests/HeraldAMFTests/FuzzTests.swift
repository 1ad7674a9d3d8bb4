import Foundation
import HeraldAMF
import Testing

/// Mutated samples from a fixed seed: every one is refused with an AMFDecodingError (typed throws make
/// that the only way out) or decodes to a value that the encoder writes and the decoder reads back the
/// same. HERALD_AMF_FUZZ_ITERATIONS and HERALD_AMF_FUZZ_SEED (decimal or 0x hex) run it longer or from
/// elsewhere: scripts/fuzz-amf.sh does, with a new seed each run.
@Suite struct FuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let iterations = environment["HERALD_AMF_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 20_000
    static let seed: UInt64 =
        environment["HERALD_AMF_FUZZ_SEED"].flatMap {
            $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : UInt64($0)
        } ?? 0x4845_5241_4C44

    @Test func mutatedSamples() throws {
        var mutator = SampleMutator(random: SplitMix64(seed: Self.seed), samples: try AMFTestSupport.allSamples().map(\.bytes))
        var decoded = 0
        for iteration in 0..<Self.iterations {
            let bytes = mutator.next()
            guard let packet = try? AMFPacket(decoding: bytes) else { continue }
            decoded += 1
            let written = packet.encoded()
            let problem: String?
            do {
                let again = try AMFPacket(decoding: written)
                problem =
                    !AMFTestSupport.same(again, packet)
                    ? "reads back as another value"
                    : again.encoded() != written ? "is written differently the second time" : nil
            } catch {
                problem = "is written so that it cannot be read: \(error)"
            }
            if let problem {
                let hex = bytes.map { String(format: "%02x", $0) }.joined()
                Issue.record(
                    "seed \(Self.seed) iteration \(iteration): a decoded packet \(problem); input \(hex)")
                return
            }
        }
        print("AMF fuzz: seed \(Self.seed), \(Self.iterations) packets, \(decoded) decoded, the rest refused")
        // Mutations keep some packets readable: if none were, the round trip was never tested.
        #expect(Self.iterations < 1000 || decoded > Self.iterations / 100)
    }
}
