import HeraldCore

/// The fake devices: an id, a random token and one channel each, channels of uneven sizes, three in ten
/// of them Android (FCM) and the rest iOS (APNs), and about 1% of each platform picked at random for its
/// mock to call unregistered (APNs 410, FCM UNREGISTERED).
struct DemoFleet: Sendable {
    struct Device: Sendable {
        let id: String
        let token: String
        let channel: String
        let os: DeviceOS
    }

    /// Channel names and their share of the devices: uneven, so the table shows fan-outs of different sizes.
    static let channels: [(name: String, share: Int)] = [("news", 50), ("sports", 30), ("weather", 20)]
    /// Android devices per ten.
    static let androidPerTen = 3

    let devices: [Device]
    /// The devices whose token their mock answers unregistered.
    let unregistered: [Device]

    init(count: Int) {
        var devices: [Device] = []
        devices.reserveCapacity(count)
        var start = 0
        for (position, channel) in Self.channels.enumerated() {
            let end = position == Self.channels.count - 1 ? count : start + count * channel.share / 100
            for index in start..<end {
                // An APNs token is 64 hex characters; an FCM registration token is longer, in FCM's alphabet.
                let android = index % 10 < Self.androidPerTen
                devices.append(
                    Device(
                        id: "demo-device-\(index)",
                        token: android ? "demo-fcm:\(RandomHex.make(bytes: 48))" : RandomHex.make(bytes: 32),
                        channel: channel.name, os: android ? .android : .ios))
            }
            start = end
        }
        self.devices = devices
        unregistered = [DeviceOS.ios, .android].flatMap { os in
            let platform = devices.filter { $0.os == os }
            return platform.shuffled().prefix(max(1, platform.count / 100))
        }
    }

    /// Devices registered in `channel`.
    func count(in channel: String) -> Int { devices.reduce(0) { $0 + ($1.channel == channel ? 1 : 0) } }

    /// Devices on `os`.
    func count(on os: DeviceOS) -> Int { devices.reduce(0) { $0 + ($1.os == os ? 1 : 0) } }
}
