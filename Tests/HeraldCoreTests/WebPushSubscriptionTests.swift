import HeraldCore
import Testing

/// A WEB device's token, the browser's subscription as JSON: what is accepted, and each refusal with
/// the field it names (issue 26).
@Suite struct WebPushSubscriptionTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static func token(
        endpoint: String = "https://fcm.googleapis.com/fcm/send/dXJp:APA91b", p256dh: String = p256dh, auth: String = auth,
        expiration: String = "null"
    ) -> String {
        #"{"endpoint":"\#(endpoint)","expirationTime":\#(expiration),"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
    }

    static func refusal(_ token: String, hosts: WebPushSubscription.HostPolicy = .init()) -> HeraldFault? {
        do {
            _ = try WebPushSubscription(parsing: token, hosts: hosts)
            return nil
        } catch {
            return error
        }
    }

    @Test func aBrowsersSubscriptionIsRead() throws {
        let subscription = try WebPushSubscription(parsing: Self.token(expiration: "1800000000000"))
        #expect(subscription.endpoint == "https://fcm.googleapis.com/fcm/send/dXJp:APA91b")
        #expect(subscription.p256dh.count == 65 && subscription.auth.count == 16)
        #expect(subscription.expirationTime == 1_800_000_000_000)
        #expect(try WebPushSubscription(parsing: Self.token()).expirationTime == nil)
    }

    @Test func eachRefusalNamesItsField() {
        let cases: [(String, String)] = [
            ("not json", "deviceToken"),
            (#"["https://x"]"#, "deviceToken"),
            (#"{"keys":{}}"#, "deviceToken.endpoint"),
            (Self.token(endpoint: "http://push.example.com/x"), "deviceToken.endpoint"),
            (Self.token(endpoint: "https://user:pw@push.example.com/x"), "deviceToken.endpoint"),
            (Self.token(endpoint: "https:///x"), "deviceToken.endpoint"),
            (#"{"endpoint":"https://push.example.com/x"}"#, "deviceToken.keys"),
            (Self.token(p256dh: "BCVx"), "deviceToken.keys.p256dh"),
            (Self.token(p256dh: "not+base64/url"), "deviceToken.keys.p256dh"),
            (Self.token(auth: "AAAA"), "deviceToken.keys.auth"),
            (Self.token(expiration: "\"soon\""), "deviceToken.expirationTime"),
        ]
        for (token, field) in cases {
            let fault = Self.refusal(token)
            #expect(fault?.code == 8008, "\(token)")
            #expect(fault?.message.contains("'\(field)'") == true, "\(token): \(fault?.message ?? "accepted")")
        }
        let long = Self.refusal(Self.token(endpoint: "https://push.example.com/" + String(repeating: "a", count: 1100)))
        #expect(long?.code == 8000 && long?.message.contains("deviceToken.endpoint") == true, "\(long?.message ?? "")")
        #expect(Self.refusal(String(repeating: " ", count: 3000))?.code == 8000)
    }

    @Test func privateAddressesAreRefusedUnlessAllowed() {
        for host in [
            "localhost", "push.localhost", "127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.0.1", "0.0.0.0",
            "100.64.0.1", "[::1]", "[fd00::1]", "[fe80::1]", "[::ffff:10.0.0.1]",
        ] {
            let token = Self.token(endpoint: "https://\(host):8443/push")
            #expect(Self.refusal(token)?.message.contains("allowPrivateHosts") == true, "\(host)")
            #expect(Self.refusal(token, hosts: .init(allowPrivateHosts: true)) == nil, "\(host) allowed for tests")
        }
        for host in ["push.example.com", "8.8.8.8", "172.32.0.1", "[2001:db8::1]"] {
            #expect(Self.refusal(Self.token(endpoint: "https://\(host)/push")) == nil, "\(host)")
        }
    }

    @Test func anAllowListKeepsToItsServices() {
        let hosts = WebPushSubscription.HostPolicy(allowedHosts: ["fcm.googleapis.com", "push.services.mozilla.com"])
        #expect(Self.refusal(Self.token(), hosts: hosts) == nil)
        #expect(Self.refusal(Self.token(endpoint: "https://updates.push.services.mozilla.com/wpush/v2/x"), hosts: hosts) == nil)
        #expect(Self.refusal(Self.token(endpoint: "https://evil-fcm.googleapis.com.example/x"), hosts: hosts)?.code == 8008)
        #expect(
            Self.refusal(Self.token(endpoint: "https://notfcm.googleapis.com/x"), hosts: hosts)?.code == 8008, "a suffix is not a subdomain"
        )
    }
}
