import HeraldCore
import Logging
import Testing

@testable import HeraldDispatch

/// Which provider serves which system, and what a message fails with when the app has none of those it needs.
@Suite struct ProviderSeamTests {
    @Test func eachSystemHasItsProvider() {
        #expect(PushProvider.serving(.ios) == .apns)
        #expect(PushProvider.serving(.osx) == .apns)
        #expect(PushProvider.serving(.android) == .fcm)
        #expect(PushProvider.serving(.wp) == nil)
        #expect(PushProvider.apns.systems == [.ios, .osx])
        #expect(PushProvider.fcm.systems == [.android])
    }

    @Test func anAppWithoutSettingsForAProviderHasNoClientForIt() {
        let clients = ProviderClients(factories: ["a": [:]], logger: Logger(label: "test"))
        #expect(!clients.isConfigured(.apns, for: "a"))
        #expect(throws: ProviderClients.Unavailable.self) { try clients.client(for: "a", .fcm) }
        #expect(
            ProviderClients.Unavailable.noCredentials("a", [.apns]).description
                == "app 'a' has no APNs credentials configured (apps[].apns in the configuration)")
        #expect(
            ProviderClients.Unavailable.noCredentials("a", [.apns, .fcm]).description
                == "app 'a' has no APNs or FCM credentials configured (apps[].apns, apps[].fcm in the configuration)")
    }

    @Test func aFactoryThatFailsNamesTheProviderAndTheReason() {
        struct Broken: Error, CustomStringConvertible { var description: String { "cannot read key.p8" } }
        let clients = ProviderClients(factories: ["a": [.apns: { _ in throw Broken() }]], logger: Logger(label: "test"))
        #expect(clients.isConfigured(.apns, for: "a"))
        do {
            _ = try clients.client(for: "a", .apns)
            Issue.record("a broken factory made a client")
        } catch {
            #expect(error.description == "app 'a': the APNs client cannot start: cannot read key.p8")
        }
    }
}
