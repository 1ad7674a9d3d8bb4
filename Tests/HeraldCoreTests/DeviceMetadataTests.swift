import HeraldCore
import Testing

/// The registry's metadata fields on a registration body: all optional, 8000 over a limit, 8008 for a
/// wrong type or value, and a later call keeps what it does not send.
@Suite struct DeviceMetadataTests {
    func parse(_ fields: String) throws(HeraldFault) -> DeviceMetadata {
        let json = try JSONValue.parse(Array(#"{"deviceToken": "ab", "deviceId": "d1", \#(fields)}"#.utf8))
        return try RegistrationRequest(json: json, now: Timestamp(milliseconds: 1_800_000_000_000)).metadata
    }

    func fault(_ fields: String) -> HeraldFault? {
        do {
            _ = try parse(fields)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyFieldIsReadAndNoneIsRequired() throws {
        let metadata = try parse(
            #""installId": "i-1", "deviceName": "John’s iPhone", "deviceModel": "iPhone15,2", "appVersion": "2.3.1", "appBuild": "415", "locale": "de-CH", "timeZone": "Europe/Zurich", "location": {"lat": 47.37, "lon": 8.54, "accuracy": 30}"#
        )
        #expect(
            metadata
                == DeviceMetadata(
                    installId: "i-1", deviceName: "John’s iPhone", deviceModel: "iPhone15,2", appVersion: "2.3.1", appBuild: "415",
                    locale: "de-CH", timeZone: "Europe/Zurich", location: DeviceLocation(lat: 47.37, lon: 8.54, accuracy: 30)))
        #expect(try parse(#""other": 1"#) == DeviceMetadata())
        #expect(try parse(#""installId": null, "location": null"#) == DeviceMetadata(), "null means not sent")
        #expect(try parse(#""location": {"lat": -90, "lon": 180}"#).location == DeviceLocation(lat: -90, lon: 180))
    }

    /// Each limit is exact, in characters, and the fault names the property.
    @Test(arguments: DeviceMetadata.limits)
    func overItsLimitIs8000NamingTheProperty(_ field: (name: String, limit: Int)) throws {
        // A value of exactly the limit that is otherwise valid (a tag's parts are at most 8 long).
        let value =
            switch field.name {
            case "timeZone": "A/" + String(repeating: "b", count: field.limit - 2)
            case "locale": "en" + String(repeating: "-abcdefgh", count: 3) + "-abcde"
            default: String(repeating: "a", count: field.limit)
            }
        #expect(value.count == field.limit)
        #expect(fault(#""\#(field.name)": "\#(value)""#) == nil, "exactly the limit is accepted")
        let over = fault(#""\#(field.name)": "\#(value)\#(field.name == "locale" ? "-x" : "x")""#)
        #expect(over?.code == 8000)
        #expect(over?.message.contains("'\(field.name)'") == true, "\(over?.message ?? "")")
    }

    @Test(arguments: [
        (#""installId": 7"#, "installId"),
        (#""appVersion": ["2"]"#, "appVersion"),
        (#""deviceName": "a\u0000b""#, "deviceName"),
        (#""locale": "en_US""#, "locale"),
        (#""locale": "123""#, "locale"),
        (#""locale": "en--US""#, "locale"),
        (#""timeZone": "Europe Zurich""#, "timeZone"),
        (#""timeZone": "/UTC""#, "timeZone"),
        (#""location": "47.3,8.5""#, "location"),
        (#""location": {"lat": 91, "lon": 0}"#, "location"),
        (#""location": {"lat": 0, "lon": -180.5}"#, "location"),
        (#""location": {"lat": 0, "lon": 0, "accuracy": -1}"#, "location"),
        (#""location": {"lat": "0", "lon": 0}"#, "location"),
        (#""location": {"lon": 0}"#, "location"),
        (#""location": {"lat": 0, "lon": 0, "alt": 3}"#, "location"),
    ])
    func aWrongTypeOrValueIs8008NamingTheProperty(_ fields: String, _ property: String) {
        let refused = fault(fields)
        #expect(refused?.code == 8008, "\(fields)")
        #expect(refused?.message.contains("'\(property)'") == true, "\(refused?.message ?? "accepted")")
    }

    @Test func aLaterCallKeepsWhatItDoesNotSend() {
        let stored = DeviceMetadata(
            installId: "i-1", appVersion: "1.0", locale: "en", location: DeviceLocation(lat: 1, lon: 2, accuracy: 3))
        let update = DeviceMetadata(appVersion: "1.1", location: DeviceLocation(lat: 5, lon: 6))
        #expect(
            update.merged(over: stored)
                == DeviceMetadata(installId: "i-1", appVersion: "1.1", locale: "en", location: DeviceLocation(lat: 5, lon: 6)),
            "a location is replaced whole")
    }
}
