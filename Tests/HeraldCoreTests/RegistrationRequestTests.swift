import HeraldCore
import Testing

/// The registration body rules of the contract, each one on its own.
@Suite struct RegistrationRequestTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    func parse(_ json: String) throws(HeraldFault) -> RegistrationRequest {
        try RegistrationRequest(json: try JSONValue.parse(Array(json.utf8)), now: now)
    }

    func code(_ json: String) -> Int? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func minimalBodyDefaultsToIOSAndTheDefaultChannel() throws {
        let request = try parse(#"{"deviceToken": "ABCDEF01", "deviceId": "d1"}"#)
        #expect(request.os == .ios)
        #expect(request.channels == [.default])
        #expect(request.expiration == nil)
        #expect(request.deviceToken.rawValue == "abcdef01", "hex tokens are stored lower-case")
    }

    @Test(arguments: [#""channels": null"#, #""channels": []"#, #""other": 1"#])
    func absentNullOrEmptyChannelsMeanDefault(_ fragment: String) throws {
        let request = try parse(#"{"deviceToken": "ab", "deviceId": "d1", \#(fragment)}"#)
        #expect(request.channels == [.default])
    }

    @Test func duplicateChannelsAreIgnoredKeepingOrder() throws {
        let request = try parse(#"{"deviceToken": "ab", "deviceId": "d1", "channels": ["news", "b", "news"]}"#)
        #expect(request.channels.map(\.rawValue) == ["news", "b"])
    }

    @Test func tokensAreNotAssumedToBe64Characters() throws {
        let long = String(repeating: "ab", count: 80)
        #expect(try parse(#"{"deviceToken": "\#(long)", "deviceId": "d1"}"#).deviceToken.rawValue == long)
    }

    @Test func nonHexOrOddAppleTokensAre8008() {
        #expect(code(#"{"deviceToken": "xyz0", "deviceId": "d1"}"#) == 8008)
        #expect(code(#"{"deviceToken": "abc", "deviceId": "d1", "os": "osx"}"#) == 8008)
    }

    @Test func androidTokensAreOpaque() throws {
        let request = try parse(#"{"deviceToken": "fcm:Token_-x", "deviceId": "d1", "os": "android"}"#)
        #expect(request.os == .android)
        #expect(request.deviceToken.rawValue == "fcm:Token_-x")
    }

    @Test func missingTokenIs8007AndMissingDeviceIdIs5011() {
        #expect(code(#"{"deviceId": "d1"}"#) == 8007)
        #expect(code(#"{"deviceToken": "", "deviceId": "d1"}"#) == 8007)
        #expect(code(#"{"deviceToken": "ab"}"#) == 5011)
        #expect(code(#"{"deviceToken": "ab", "deviceId": null}"#) == 5011)
        #expect(code(#"{"deviceToken": "ab", "deviceId": ""}"#) == 5011)
    }

    @Test func wrongTypesAre8008() {
        #expect(code(#"{"deviceToken": 12, "deviceId": "d1"}"#) == 8008)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "channels": "news,b"}"#) == 5044)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "channels": {"a": 1}}"#) == 8008)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "channels": [1]}"#) == 8008)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "os": "BLACKBERRY"}"#) == 8008)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "expiration": true}"#) == 8008)
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "expiration": "soon"}"#) == 8008)
    }

    @Test func bodiesThatAreNotObjectsAre8002() {
        #expect(code("[1, 2]") == 8002)
        #expect(code(#""text""#) == 8002)
        #expect(code("{not json") == 8002)
    }

    @Test(arguments: [
        ("deviceToken", String(repeating: "a", count: 514), 512),
        ("deviceId", String(repeating: "d", count: 129), 128),
        ("os", String(repeating: "o", count: 17), 16),
        ("osVersion", String(repeating: "1", count: 65), 64),
    ])
    func overLongPropertiesAre8000NamingThePropertyItsLengthAndTheLimit(property: String, value: String, limit: Int) {
        var body: [String: String] = ["deviceToken": "ab", "deviceId": "d1"]
        body[property] = value
        let json = "{" + body.map { #""\#($0.key)": "\#($0.value)""# }.joined(separator: ",") + "}"
        do {
            _ = try parse(json)
            Issue.record("accepted an over-long \(property)")
        } catch {
            #expect(error.code == 8000)
            #expect(error.message.contains("'\(property)'"))
            #expect(error.message.contains("\(value.count)"))
            #expect(error.message.contains("\(limit)"))
        }
    }

    @Test func atTheLimitIsAccepted() throws {
        let token = String(repeating: "a", count: 512)
        let id = String(repeating: "d", count: 128)
        #expect(try parse(#"{"deviceToken": "\#(token)", "deviceId": "\#(id)"}"#).deviceId.rawValue == id)
    }

    @Test func moreThan100ChannelsIs8000() {
        let channels = (0...100).map { #""c\#($0)""# }.joined(separator: ",")
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "channels": [\#(channels)]}"#) == 8000)
        let hundred = (0..<100).map { #""c\#($0)""# }.joined(separator: ",")
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "channels": [\#(hundred)]}"#) == nil)
    }

    @Test func unknownKeysAreIgnored() {
        #expect(code(#"{"deviceToken": "ab", "deviceId": "d1", "pushTemplates": {"x": 1}, "extra": [1]}"#) == nil)
    }
}
