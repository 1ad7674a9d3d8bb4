import Foundation
import HeraldAMF
import Testing

/// Where scripts/amf-check.sh has Py3AMF write its packets; nil outside that script.
private let pyAMFDirectory = ProcessInfo.processInfo.environment["HERALD_AMF_PY_DIR"].map(URL.init(fileURLWithPath:))

/// The Swift half of scripts/amf-check.sh, run only when HERALD_AMF_PY_DIR names its directory: decodes
/// every packet Py3AMF wrote (NAME.amf) and compares it with the expected packet (NAME.json); writes its
/// own encoding of each expected packet (NAME.swift.amf), and of every Backendless sample as it reads it
/// (sample-NAME.json and .swift.amf), for Py3AMF to decode in the script's second Python run.
@Suite struct PyAMFCrossCheckTests {
    @Test(.enabled(if: pyAMFDirectory != nil, "HERALD_AMF_PY_DIR is set by scripts/amf-check.sh"))
    func decodeWhatPyAMFWroteAndWriteForIt() throws {
        let directory = try #require(pyAMFDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix("sample-") }.map { String($0.dropLast(5)) }.sorted()
        #expect(!names.isEmpty, "Py3AMF wrote nothing into \(directory.path)")
        for name in names {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(name + ".json")))
            let expected = try TaggedJSON.packet(json)
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name + ".amf")))
            do {
                let decoded = try AMFPacket(decoding: bytes)
                #expect(decoded == expected, "\(name).amf decodes to \(decoded), expected \(expected)")
            } catch {
                Issue.record("\(name).amf: \(error)")
            }
            // AMF3 values need a version 3 packet (Py3AMF refuses them in a version 0 one), as Herald answers.
            var answer = expected
            answer.version = 3
            try Data(answer.encoded()).write(to: directory.appendingPathComponent(name + ".swift.amf"))
        }
        for sample in try AMFTestSupport.allSamples() {
            let packet = try AMFPacket(decoding: try AMFPacket(decoding: sample.bytes).encoded())
            let stem = directory.appendingPathComponent("sample-" + sample.name)
            try JSONSerialization.data(withJSONObject: TaggedJSON.json(packet), options: [.sortedKeys])
                .write(to: stem.appendingPathExtension("json"))
            try Data(packet.encoded()).write(to: stem.appendingPathExtension("swift.amf"))
        }
        print("PyAMF cross-check: \(names.count) Py3AMF packets decoded, \(names.count) + samples written for it")
    }
}
