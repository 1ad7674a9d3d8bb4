import HeraldCore

/// The fake devices: an id, a token and one channel each, channels of uneven sizes, three in ten of them
/// Android (FCM), two in ten browsers (Web Push) and the rest iOS (APNs), and about 1% of each platform
/// picked at random for its mock to call gone (APNs 410, FCM UNREGISTERED, Web Push 410).
struct DemoFleet: Sendable {
    struct Device: Sendable {
        let id: String
        let token: String
        let channel: String
        let os: DeviceOS
    }

    /// Channel names and their share of the devices: uneven, so the table shows fan-outs of different sizes.
    static let channels: [(name: String, share: Int)] = [("news", 50), ("sports", 30), ("weather", 20)]
    /// Devices per ten on each platform but iOS, which has the rest.
    static let perTen: [(os: DeviceOS, count: Int)] = [(.android, 3), (.web, 2)]
    /// The platforms of the fleet, in the order the demo lists them.
    static let platforms: [DeviceOS] = [.ios] + perTen.map(\.os)

    let devices: [Device]
    /// The devices whose token their mock answers gone.
    let unregistered: [Device]

    /// `webSubscription`: a browser's subscription JSON for an id, at the push service the demo runs (a WEB
    /// device's token is its subscription; the service derives its keys from the id).
    init(count: Int, webSubscription: (String) -> String) {
        var devices: [Device] = []
        devices.reserveCapacity(count)
        var start = 0
        for (position, channel) in Self.channels.enumerated() {
            let end = position == Self.channels.count - 1 ? count : start + count * channel.share / 100
            for index in start..<end {
                let os = Self.os(of: index)
                devices.append(
                    Device(id: "demo-device-\(index)", token: Self.token(os, index, webSubscription), channel: channel.name, os: os))
            }
            start = end
        }
        self.devices = devices
        unregistered = Self.platforms.flatMap { os in
            let platform = devices.filter { $0.os == os }
            return platform.shuffled().prefix(max(1, platform.count / 100))
        }
    }

    /// Device `index`'s platform: the first `perTen` slots of every ten in order, iOS for the rest.
    private static func os(of index: Int) -> DeviceOS {
        var slot = index % 10
        for platform in perTen {
            if slot < platform.count { return platform.os }
            slot -= platform.count
        }
        return .ios
    }

    /// An APNs token is 64 hex characters; an FCM registration token is longer, in FCM's alphabet; a
    /// browser's is its subscription.
    private static func token(_ os: DeviceOS, _ index: Int, _ webSubscription: (String) -> String) -> String {
        switch os {
        case .android: "demo-fcm:\(RandomHex.make(bytes: 48))"
        case .web: webSubscription("demo-web-\(index)")
        default: RandomHex.make(bytes: 32)
        }
    }

    /// Devices registered in `channel`.
    func count(in channel: String) -> Int { devices.reduce(0) { $0 + ($1.channel == channel ? 1 : 0) } }

    /// Devices on `os`.
    func count(on os: DeviceOS) -> Int { devices.reduce(0) { $0 + ($1.os == os ? 1 : 0) } }

    /// Devices `provider` delivers to.
    func count(through provider: PushProvider) -> Int {
        devices.reduce(0) { $0 + (PushProvider.serving($1.os) == provider ? 1 : 0) }
    }

    /// Devices whose token `provider`'s mock answers gone.
    func unregistered(through provider: PushProvider) -> [Device] {
        unregistered.filter { PushProvider.serving($0.os) == provider }
    }
}
