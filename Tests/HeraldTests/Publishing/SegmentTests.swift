import APNsMock
import HTTPTypes
import HeraldCore
import Testing

/// `segment` on a publish: only the devices whose registry record matches it get the message, on both
/// backends; a bad segment is refused before anything is stored.
@Suite struct SegmentTests {
    /// (app version, locale, model) per device `dev-<index>`; nil sends nothing for that field.
    static let devices: [(String?, String?, String?)] = [
        ("1.0", "de-CH", "iPhone15,2"),  // 0
        ("2.2.9", "de", "iPhone14,7"),  // 1
        ("2.3", "fr-CA", "iPhone15,2"),  // 2
        ("2.10", "fr-FR", "iPhone16,1"),  // 3
        ("0.9", "en-US", nil),  // 4
        (nil, nil, nil),  // 5
        ("2.3.0-beta", "deu", "iPhone14,7"),  // 6: 2.3.0, and not German
        ("1.5", "DE-at", "iPad13,1"),  // 7: tags match in any case
    ]

    static func register(_ h: PublishHarness.Harness) async throws {
        for (index, (version, locale, model)) in devices.enumerated() {
            var fields = [
                #""deviceToken": "\#(PublishHarness.token(index))""#, #""deviceId": "dev-\#(index)""#, #""channels": ["news"]"#,
            ]
            if let version { fields.append(#""appVersion": "\#(version)""#) }
            if let locale { fields.append(#""locale": "\#(locale)""#) }
            if let model { fields.append(#""deviceModel": "\#(model)""#) }
            let answer = try await h.client.call(.post, PublishHarness.register, json: "{" + fields.joined(separator: ", ") + "}")
            #expect(answer.status == .ok, "dev-\(index): \(answer.body)")
        }
    }

    /// Publishes with `segment` (and `extra` body fields) and returns the indexes of the devices the mock got it for.
    static func reached(_ h: PublishHarness.Harness, _ segment: String, extra: String = "") async throws -> Set<Int> {
        h.mock.reset()
        let id = try await h.publish("news", #"{"message": "Hi", "segment": \#(segment)\#(extra)}"#)
        let status = try await h.waitFor(id, status: "published")
        let tokens = Set(h.mock.notifications().map(\.token))
        let indexes = Set(devices.indices.filter { tokens.contains(PublishHarness.token($0)) })
        #expect(status.delivery("sent") == Int64(indexes.count), "counts agree with what APNs got")
        #expect(tokens.count == indexes.count, "nothing but the test's devices")
        return indexes
    }

    @Test(arguments: PublishHarness.Database.available)
    func aSegmentReachesExactlyTheMatchingDevices(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await Self.register(h)
            #expect(try await Self.reached(h, #"{"appVersionBelow": "2.3", "appVersionAtLeast": "1.0"}"#) == [0, 1, 7])
            #expect(try await Self.reached(h, #"{"appVersionAtLeast": "2.3"}"#) == [2, 3, 6], "2.10 is above 2.3")
            #expect(try await Self.reached(h, #"{"locales": ["de", "fr-CA"]}"#) == [0, 1, 2, 7])
            #expect(try await Self.reached(h, #"{"deviceModels": ["iPhone15,2", "iPad13,1"]}"#) == [0, 2, 7])
            #expect(try await Self.reached(h, #"{"locales": ["de"], "appVersionBelow": "1.2"}"#) == [0])
            #expect(
                try await Self.reached(h, #"{"locales": ["de", "fr"]}"#, extra: #", "pushSinglecast": ["dev-0", "dev-3", "dev-4"]"#)
                    == [0, 3])
            #expect(try await Self.reached(h, #"{"appVersionBelow": "0.1"}"#) == [], "nothing matches: nothing is sent")

            // Seen since: a launch counts as being seen.
            h.clock.advance(milliseconds: 60_000)
            let since = h.clock.now.milliseconds
            #expect(try await h.client.call(.post, "/shop/k-client/devices/dev-4/launches").status == .ok)
            #expect(try await Self.reached(h, #"{"seenSince": \#(since)}"#) == [4])

            // A later registration changes what matches: dev-5 reports a version, dev-6 a non-numeric one.
            for (index, version) in [(5, "2.0"), (6, "beta")] {
                let body =
                    #"{"deviceToken": "\#(PublishHarness.token(index))", "deviceId": "dev-\#(index)", "channels": ["news"], "appVersion": "\#(version)"}"#
                #expect(try await h.client.call(.post, PublishHarness.register, json: body).status == .ok)
            }
            #expect(try await Self.reached(h, #"{"appVersionBelow": "2.3", "appVersionAtLeast": "1.0"}"#) == [0, 1, 5, 7])
        }
    }

    @Test func aBadSegmentIsRefusedWithItsProperty() async throws {
        try await PublishHarness.with { h in
            let cases: [(String, Int, String)] = [
                (#""segment": []"#, 8008, "segment"),
                (#""segment": {"appVersionBelow": "2.x"}"#, 8008, "segment.appVersionBelow"),
                (#""segment": {"appVersionAtLeast": 2}"#, 8008, "segment.appVersionAtLeast"),
                (#""segment": {"appVersionBelow": "1.2.3.4.5"}"#, 8008, "segment.appVersionBelow"),
                (#""segment": {"locales": ["de_DE"]}"#, 8008, "segment.locales"),
                (#""segment": {"locales": []}"#, 8008, "segment.locales"),
                (#""segment": {"locales": "de"}"#, 8008, "segment.locales"),
                (#""segment": {"deviceModels": [1]}"#, 8008, "segment.deviceModels"),
                (#""segment": {"seenSince": "yesterday"}"#, 8008, "segment.seenSince"),
                (#""segment": {"seenSince": -1}"#, 8008, "segment.seenSince"),
                (#""segment": {"appVersion": "2.3"}"#, 8008, "appVersion"),
                (#""segment": {"locales": [\#(Array(repeating: #""de""#, count: 101).joined(separator: ","))]}"#, 8000, "segment.locales"),
                (#""segment": {"deviceModels": ["\#(String(repeating: "x", count: 65))"]}"#, 8000, "segment.deviceModels"),
            ]
            for (body, code, named) in cases {
                let answer = try await h.client.call(.post, PublishHarness.publish + "/news", json: #"{"message": "Hi", \#(body)}"#)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.body.code == Int64(code), "\(body): \(answer.body)")
                guard case .string(let message)? = answer.body["message"] else { continue }
                #expect(message.contains(named), "\(body): \(message)")
            }
            #expect(h.mock.notifications().isEmpty)
        }
    }
}
