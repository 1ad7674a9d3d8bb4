import HeraldCore
import Testing

@Suite struct AppVersionTests {
    @Test func versionsCompareNumericallyPartByPart() throws {
        func v(_ text: String) throws -> AppVersion { try #require(AppVersion(text), "\(text)") }
        #expect(try v("2.3") < v("2.10"))
        #expect(try v("2.3") == v("2.3.0"))
        #expect(try v("2.3") < v("2.3.1"))
        #expect(try v("1.99.99") < v("2"))
        #expect(try v("2.3.1-beta") == v("2.3.1"))
        #expect(try v("10") > v("9.9.9.9"))
        #expect(try v("1.2.3.4.5") == v("1.2.3.4"), "a fifth part is ignored")
        #expect(AppVersion("beta") == nil && AppVersion("") == nil && AppVersion(".1") == nil)
        #expect(try v("2.3").isExact && !v("2.3-rc").isExact && !v("1.2.3.4.5").isExact && !v("2..3").isExact)
    }

    @Test func theStoredKeyOrdersAsTheVersionsDo() throws {
        let versions = ["0.9", "1", "1.0.1", "1.2", "1.10", "2.3", "2.3.0.1", "10.0", "1234567890123", "999999999.1"]
        let parsed = try versions.map { try #require(AppVersion($0)) }
        #expect(parsed == parsed.sorted())
        #expect(parsed.map(\.key) == parsed.map(\.key).sorted())
        #expect(parsed.allSatisfy { $0.key.count == 36 && $0.key.allSatisfy(\.isNumber) })
        #expect(try #require(AppVersion("2.3")).key == "000000002000000003000000000000000000")
    }
}

@Suite struct SegmentParsingTests {
    @Test func aSegmentReadsEveryField() throws {
        let json = try JSONValue.parse(
            Array(
                #"{"appVersionBelow": "2.3", "appVersionAtLeast": "1.0", "locales": ["de", "fr-CA", "de"], "deviceModels": ["iPhone15,2"], "seenSince": 5}"#
                    .utf8))
        let segment = try #require(try Segment.parse(json))
        #expect(segment.appVersionBelow == AppVersion("2.3") && segment.appVersionAtLeast == AppVersion("1"))
        #expect(segment.locales == ["de", "fr-CA"], "duplicates dropped")
        #expect(segment.deviceModels == ["iPhone15,2"])
        #expect(segment.seenSince == Timestamp(milliseconds: 5))
        #expect(try Segment.parse(nil) == nil && Segment.parse(.null) == nil && Segment.parse(.object([:])) == nil)
    }

    @Test func unknownKeysAndBadValuesAre8008() throws {
        for body in [#"{"appversionBelow": "2"}"#, #"{"locales": ["-de"]}"#, #"{"seenSince": 1.5}"#, #"{"deviceModels": [""]}"#] {
            let json = try JSONValue.parse(Array(body.utf8))
            let fault = #expect(throws: HeraldFault.self, "\(body)") { try Segment.parse(json) }
            #expect(fault?.code == 8008, "\(body)")
        }
    }
}
