import HeraldCore

/// The fake devices: an id, a random 64-hex-character token and one channel each, channels of uneven
/// sizes, and about 1% of them picked at random for the mock to call unregistered (410).
struct DemoFleet: Sendable {
    struct Device: Sendable {
        let id: String
        let token: String
        let channel: String
    }

    /// Channel names and their share of the devices: uneven, so the table shows fan-outs of different sizes.
    static let channels: [(name: String, share: Int)] = [("news", 50), ("sports", 30), ("weather", 20)]

    let devices: [Device]
    /// The devices whose token the mock answers 410 Unregistered.
    let unregistered: [Device]

    init(count: Int) {
        var devices: [Device] = []
        devices.reserveCapacity(count)
        var start = 0
        for (position, channel) in Self.channels.enumerated() {
            let end = position == Self.channels.count - 1 ? count : start + count * channel.share / 100
            for index in start..<end {
                devices.append(Device(id: "demo-device-\(index)", token: RandomHex.make(bytes: 32), channel: channel.name))
            }
            start = end
        }
        self.devices = devices
        unregistered = Array(devices.shuffled().prefix(max(1, count / 100)))
    }

    /// Devices registered in `channel`.
    func count(in channel: String) -> Int { devices.reduce(0) { $0 + ($1.channel == channel ? 1 : 0) } }
}
