/// What `populate` writes, decided row by row from the device number alone, so a plan can be
/// generated in any order and scripts (bench/get.lua) can name the devices it created.
///
/// Device `n` (1-based) has the primary key `n`, the device id `dev-` + nine digits (`n` itself, or `n`
/// scattered over the range: `deviceIdOrder`), and is
/// registered to `channelsPerDevice` consecutive channels out of `channelCount`. Whether its
/// registrations expired, expire later or never expire follows a fixed scatter of `n`, so expired
/// rows are spread over the whole table, as they would be in a real registry. When, within the past
/// hour or a day ahead, follows `expiryOrder`.
struct PopulationPlan: Sendable {
    /// How expiration instants relate to device numbers, which is how close together a sweep's
    /// deletions land in the tables (the sweeper deletes in `expires_at` order).
    enum ExpiryOrder: String, Sendable, CaseIterable {
        /// Devices expire in the order they registered, as with one fixed time-to-live: each sweep
        /// batch deletes neighbouring rows.
        case registration
        /// Expiration instants are unrelated to registration order: each batch's rows are scattered
        /// over the whole table (the worst case for the page cache and the WAL).
        case random
    }

    var app: String
    var devices: Int
    var channelCount: Int
    var channelsPerDevice: Int
    /// Share of devices whose registrations expired before `now` (what the next sweep removes).
    var expiredShare: Double
    /// Share of devices whose registrations expire in the future; the rest never expire.
    var expiringShare: Double
    var expiryOrder: ExpiryOrder
    /// Epoch milliseconds the plan is relative to (creation times, past and future expirations).
    var now: Int64
    /// Share of devices that are ANDROID with an FCM-shaped token; the rest are IOS with an APNs token.
    var androidShare: Double = 0

    /// The scatter resolution: shares are exact for every full block of this many devices.
    static let scatterBlock = 10_000

    /// How device ids follow device numbers (the keys a fan-out pages by).
    var deviceIdOrder: DeviceIdOrder = .sequential

    /// How device ids relate to device numbers (and so to the keys a fan-out pages by). Before migration
    /// 0023 this decided how close together a fan-out's history rows landed in the device index (app,
    /// device id, id); since, the history is indexed by key and the two orders should cost the same.
    enum DeviceIdOrder: String, Sendable, CaseIterable {
        /// `dev-` and the number in nine digits: a page's history rows are neighbours in the index.
        case sequential
        /// `dev-` and nine digits scattered over the whole range (a fixed bijection of the number), as
        /// the ids apps send (UUIDs) are: a page's history rows land all over the index.
        case scattered
    }

    var registrations: Int { devices * channelsPerDevice }

    /// Device `n`'s id under this plan's order.
    func deviceId(_ n: Int) -> String {
        switch deviceIdOrder {
        case .sequential: Self.deviceKey(n)
        // 654,435,761 is coprime with 10^9, so the product modulo 10^9 is a bijection of the numbers.
        case .scattered: Self.deviceKey((n &* 654_435_761) % 1_000_000_000)
        }
    }

    static func deviceKey(_ n: Int) -> String {
        let digits = String(n)
        return "dev-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
    }

    static func channelName(_ index: Int) -> String { "channel-\(index)" }

    /// The channel ids (1-based) device `n` is registered to.
    func channels(of n: Int) -> [Int] {
        (0..<channelsPerDevice).map { (n + $0) % channelCount + 1 }
    }

    /// The expiration of every registration of device `n`: in the past hour, a day or more ahead, or none.
    func expiresAt(_ n: Int) -> Int64? {
        // 7,919 is coprime with 10,000, so this visits every slot of a block exactly once.
        let slot = Double((n &* 7_919) % Self.scatterBlock) / Double(Self.scatterBlock)
        if slot < expiredShare { return now - 1_000 - Self.hour + offset(n) }
        if slot < expiredShare + expiringShare { return now + 86_400_000 + offset(n) }
        return nil
    }

    static let hour: Int64 = 3_600_000

    /// Where in its one-hour window device `n` expires.
    func offset(_ n: Int) -> Int64 {
        switch expiryOrder {
        case .registration: Int64(n) * Self.hour / Int64(devices + 1)
        case .random: Int64(Self.mix(UInt64(n)) % UInt64(Self.hour))
        }
    }

    /// SplitMix64's finaliser: a fixed, well-spread function of `n`.
    static func mix(_ n: UInt64) -> UInt64 {
        var z = n &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether device `n` is ANDROID: a fixed scatter of `n` (exact for every full block of devices,
    /// spread over the table as a real registry's are), independent of the expiry scatter's order.
    func isAndroid(_ n: Int) -> Bool {
        // 3,089 is coprime with 10,000 too, and visits the slots in another order than 7,919.
        Double((n &* 3_089) % Self.scatterBlock) / Double(Self.scatterBlock) < androidShare
    }

    /// Device `n`'s operating system, as the devices table holds it.
    func os(_ n: Int) -> String { isAndroid(n) ? "ANDROID" : "IOS" }

    /// Device `n`'s push token: FCM-shaped for an ANDROID device, 64 hex digits for an IOS one.
    func deviceToken(_ n: Int) -> String { isAndroid(n) ? FCMBenchToken.make(n) : Self.token(n) }

    /// How many of the devices are ANDROID.
    var androidDevices: Int { (1...devices).reduce(0) { $0 + (isAndroid($1) ? 1 : 0) } }

    /// A 64-digit hex APNs-style token, distinct per device.
    static func token(_ n: Int) -> String {
        var state = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        var token = ""
        token.reserveCapacity(64)
        for _ in 0..<4 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digits = String(state, radix: 16)
            token += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return token
    }
}
