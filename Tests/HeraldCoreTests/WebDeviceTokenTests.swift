import HeraldCore
import Testing

/// A WEB device at the registration points (issue 26): its token is the browser's subscription, with
/// its own length limit and the app's host rules; WEB in `DeviceOS`, `PushBroadcast` and `PushProvider`.
@Suite struct WebDeviceTokenTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    /// A real P-256 public key (an uncompressed point on the curve, made with `openssl ecparam -name
    /// prime256v1`), and a 16-byte secret: base64url without padding, as browsers give them.
    static let p256dh = "BFHt_YixKa1kyimI5Es0rL4vgxI5U6FRA8qqM5Z4AiJW-xG_hoP9sT74s6HLFVmIuDrc0XqhNvrx9jcV1-5iSw0"
    static let auth = "ui7CZSarZRBX2nHh4tIXmw"
    static let endpoint = "https://fcm.googleapis.com/fcm/send/dXJp:APA91bH"

    /// `JSON.stringify(subscription)`; `padding` adds a member browsers do not send, to reach a length.
    static func subscription(endpoint: String = endpoint, padding: Int = 0) -> String {
        let pad = padding > 0 ? #","pad":""# + String(repeating: "a", count: padding) + #"""# : ""
        return #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}\#(pad)}"#
    }

    /// A subscription exactly `length` bytes long.
    static func subscription(length: Int) -> String {
        let bare = subscription()
        let padded = subscription(padding: length - bare.utf8.count - #","pad":"""#.utf8.count)
        #expect(padded.utf8.count == length)
        return padded
    }

    func register(token: String, os: String, rules: DeviceToken.Rules = .init()) throws(HeraldFault) -> RegistrationRequest {
        try RegistrationRequest(
            json: .object(["deviceToken": .string(token), "deviceId": "browser-1", "os": .string(os)]), now: now, rules: rules)
    }

    static func fault(_ body: () throws(HeraldFault) -> Void) -> HeraldFault? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func theKeysAreWhatABrowserGives() {
        #expect(Base64URL.decode(Self.p256dh)?.count == 65 && Base64URL.decode(Self.p256dh)?.first == 0x04)
        #expect(Base64URL.decode(Self.auth)?.count == 16)
        #expect(!Self.p256dh.contains("=") && !Self.auth.contains("="))
    }

    @Test(arguments: ["web", "WEB", "Web"])
    func aSubscriptionRegistersAsAWebDevice(_ os: String) throws {
        let token = Self.subscription()
        let request = try register(token: token, os: os)
        #expect(request.os == .web)
        #expect(request.deviceToken.rawValue == token, "kept exactly as the browser wrote it")
        #expect(try DeviceToken(validating: token, os: .web).rawValue == token)
    }

    @Test func aWebTokenHasItsOwnLimitOf2048() throws {
        #expect(DeviceToken.limit(for: .web) == 2048)
        #expect(DeviceToken.limit(for: .android) == 512)
        let six = Self.subscription(length: 600)
        #expect(try register(token: six, os: "WEB").deviceToken.rawValue == six)
        let android = Self.fault { () throws(HeraldFault) in _ = try register(token: String(repeating: "a", count: 600), os: "ANDROID") }
        #expect(android?.code == 8000 && android?.message.contains("'deviceToken'") == true, "\(android?.message ?? "accepted")")
        #expect(
            Self.fault { () throws(HeraldFault) in _ = try DeviceToken(validating: String(repeating: "a", count: 600), os: .android) }?
                .code == 8000)

        let longest = Self.subscription(length: 2048)
        #expect(try register(token: longest, os: "WEB").deviceToken.rawValue == longest)
        let over = Self.subscription(length: 2049)
        for fault in [
            Self.fault { () throws(HeraldFault) in _ = try register(token: over, os: "WEB") },
            Self.fault { () throws(HeraldFault) in _ = try DeviceToken(validating: over, os: .web) },
        ] {
            #expect(fault?.code == 8000, "\(fault?.message ?? "accepted")")
            #expect(fault?.message.contains("'deviceToken' is 2049 long, the limit is 2048") == true, "\(fault?.message ?? "")")
        }
    }

    @Test func aWebTokenMustBeASubscription() {
        for token in ["not json", "c2b7e4f0a1", #"{"endpoint":"https://push.example.com/x"}"#] {
            let fault = Self.fault { () throws(HeraldFault) in _ = try register(token: token, os: "WEB") }
            #expect(fault?.code == 8008 && fault?.message.contains("'deviceToken") == true, "\(token): \(fault?.message ?? "accepted")")
        }
        // The same text is a fine Android token: the check is WEB's.
        #expect(Self.fault { () throws(HeraldFault) in _ = try register(token: "not json", os: "ANDROID") } == nil)
    }

    @Test func aPrivateHostIsRefusedUnlessTheAppAllowsIt() throws {
        let token = Self.subscription(endpoint: "https://127.0.0.1:8443/push/abc")
        for fault in [
            Self.fault { () throws(HeraldFault) in _ = try register(token: token, os: "WEB") },
            Self.fault { () throws(HeraldFault) in _ = try DeviceToken(validating: token, os: .web) },
        ] {
            #expect(fault?.code == 8008, "\(fault?.message ?? "accepted")")
            #expect(fault?.message.contains("'deviceToken.endpoint'") == true, "\(fault?.message ?? "")")
        }
        let allowing = DeviceToken.Rules(webPushHosts: .init(allowPrivateHosts: true))
        #expect(try register(token: token, os: "WEB", rules: allowing).deviceToken.rawValue == token)
        #expect(try DeviceToken(validating: token, os: .web, rules: allowing).rawValue == token)
    }

    @Test func anAllowListRestrictsTheHosts() throws {
        let rules = DeviceToken.Rules(webPushHosts: .init(allowedHosts: ["push.services.mozilla.com"]))
        let mozilla = Self.subscription(endpoint: "https://updates.push.services.mozilla.com/wpush/v2/gAAAA")
        #expect(try register(token: mozilla, os: "WEB", rules: rules).os == .web)
        let fault = Self.fault { () throws(HeraldFault) in _ = try register(token: Self.subscription(), os: "WEB", rules: rules) }
        #expect(fault?.code == 8008 && fault?.message.contains("'deviceToken.endpoint'") == true, "\(fault?.message ?? "accepted")")
        #expect(try register(token: Self.subscription(), os: "WEB").os == .web, "no list: any public host")
    }

    @Test func hostRulesAreForWebTokensOnly() throws {
        let rules = DeviceToken.Rules(webPushHosts: .init(allowedHosts: ["push.example.com"]))
        #expect(try register(token: "fcm:token", os: "ANDROID", rules: rules).deviceToken.rawValue == "fcm:token")
        #expect(try register(token: "ABCDEF", os: "IOS", rules: rules).deviceToken.rawValue == "abcdef")
    }

    @Test func webIsAnOperatingSystem() throws {
        #expect(try DeviceOS(parsing: "web") == .web)
        #expect(try DeviceOS(parsing: "WEB") == .web)
        #expect(DeviceOS.web.rawValue == "WEB" && DeviceOS.web.displayName == "Web")
        #expect(!DeviceOS.web.usesHexTokens)
        let fault = Self.fault { () throws(HeraldFault) in _ = try DeviceOS(parsing: "palm") }
        #expect(fault?.code == 8008 && fault?.message.contains("'os'") == true)
        #expect(fault?.message.contains("WEB") == true, "\(fault?.message ?? "accepted")")
        #expect(DeviceOS.served.contains(.web))
        #expect(DeviceOS.served == [.ios, .osx, .android, .web], "WP has no push service")
    }

    @Test func webHasItsBroadcastBit() {
        #expect(PushBroadcast(.web) == .web)
        #expect(PushBroadcast.web.rawValue == 16)
        #expect(PushBroadcast.all.includes(.web))
        #expect(PushBroadcast.all.rawValue == 31)
        for os in DeviceOS.allCases { #expect(PushBroadcast.all.includes(os), "\(os)") }
        let two = PushBroadcast([.ios, .web])
        #expect(two == [.ios, .web] && two.rawValue == 17)
        #expect(two.includes(.ios) && two.includes(.web))
        #expect(!two.includes(.android) && !two.includes(.osx) && !two.includes(.wp))
        #expect(!PushBroadcast([.ios, .android, .wp, .osx]).includes(.web), "Backendless's ALL (15) leaves browsers out")
        #expect(PushBroadcast([DeviceOS]()) == [])
    }

    @Test func webPushServesWebDevices() {
        #expect(PushProvider.serving(.web) == .webPush)
        #expect(PushProvider.webPush.platformKey == "web")
        #expect(PushProvider.webPush.systems == [.web])
        #expect(PushProvider.webPush.rawValue == "webPush" && PushProvider.webPush.displayName == "Web Push")
        #expect(PushProvider.serving(.wp) == nil)
        #expect(PushProvider.apns.systems == [.ios, .osx] && PushProvider.fcm.systems == [.android], "WEB is no one else's")
    }
}
