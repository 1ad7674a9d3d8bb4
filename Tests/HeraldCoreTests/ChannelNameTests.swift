import HeraldCore
import Testing

@Suite struct ChannelNameTests {
    @Test(arguments: ["default", "news", "A-z_0.9~x:y", String(repeating: "c", count: 128)])
    func validNames(_ name: String) throws {
        #expect(try ChannelName(validating: name).rawValue == name)
    }

    @Test(arguments: ["", "has space", "slash/", "emoji🙂", "semi;colon", "ünïcode"])
    func invalidCharactersAre5044(_ name: String) {
        #expect(throws: HeraldFault.self) { try ChannelName(validating: name) }
        do { _ = try ChannelName(validating: name) } catch { #expect(error.code == 5044) }
    }

    @Test(arguments: ["registrations", "channels", "push", "pushtemplates", "email", "Push", "message:123", "MESSAGE:x"])
    func reservedNamesAre5044(_ name: String) {
        do {
            _ = try ChannelName(validating: name)
            Issue.record("accepted reserved name \(name)")
        } catch {
            #expect(error.code == 5044)
        }
    }

    @Test func overLongNamesAre8000() {
        do {
            _ = try ChannelName(validating: String(repeating: "c", count: 129), property: "channels")
            Issue.record("accepted a 129-character name")
        } catch {
            #expect(error.code == 8000)
            #expect(error.message.contains("'channels'") && error.message.contains("129") && error.message.contains("128"))
        }
    }
}
