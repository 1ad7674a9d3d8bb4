import HeraldCore

/// Everything Herald keeps about devices, channels and registrations, behind one interface so the
/// routes and the sweeper never know which database holds them.
///
/// Every method that takes `now` treats registrations whose expiration is at or before it as gone,
/// whether or not a sweep has removed them yet.
public protocol RegistrationStore: LiveActivityStore {
    /// Upserts the device and its listed channels (additive per channel). Durable when it returns.
    func register(app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> RegistrationReceipt

    /// The device with its live channels, or nil when it is unknown or every channel has expired.
    func device(app: String, deviceId: String, now: Timestamp) async throws -> DeviceRegistration?

    /// Removes the device and all its registrations. False when it had no live registration.
    func unregister(app: String, deviceId: String, now: Timestamp) async throws -> Bool

    /// Removes the device from the given channels only. Returns how many live channels remain,
    /// or nil when the device had no live registration.
    func unregister(app: String, deviceId: String, channels: [ChannelName], now: Timestamp) async throws -> Int?

    /// Gives the device a new push token, keeping its channels and expirations; a new token re-activates a
    /// device its push service deactivated (as a registration with it does). False when it had no live
    /// registration.
    func replaceToken(app: String, deviceId: String, token: DeviceToken, now: Timestamp) async throws -> Bool

    /// Removes a channel and its registrations. False when the channel does not exist.
    func deleteChannel(app: String, name: ChannelName) async throws -> Bool

    /// Deletes channels the sweeps have found without registrations since `cutoff` (see the SQL store).
    func removeEmptyChannels(emptySince cutoff: Timestamp, now: Timestamp, batchSize: Int, app: String?) async throws -> Int

    /// The app's channels with their live registration counts, by name.
    func channels(app: String, after: ChannelName?, limit: Int, now: Timestamp) async throws -> [ChannelSummary]

    /// The live registrations of each of `names` (channels of the app) by their device's operating system.
    /// It reads every registration of those channels and its device, so callers cache it.
    func channelPlatforms(app: String, names: [ChannelName], now: Timestamp) async throws -> [ChannelName: [DeviceOS: Int]]

    /// One page of a channel's live registrations on active devices, ordered by cursor, after `cursor`: the
    /// members among the next `limit` live registrations (see `KeysetPage`).
    func members(app: String, channel: ChannelName, after cursor: Int64, limit: Int, now: Timestamp) async throws
        -> KeysetPage<ChannelMember>

    /// One page of a message's recipients, ordered by device key, after `cursor` (see `RecipientFilter`): the
    /// recipients among the next `limit` candidates, so every page costs the same wherever it starts.
    func recipients(app: String, filter: RecipientFilter, after cursor: Int64, limit: Int, now: Timestamp) async throws
        -> KeysetPage<Recipient>

    /// The lowest and highest key `recipients` would walk for `filter` (the span a fan-out slices and a
    /// recipient estimate scales by), or nil when there are none.
    func recipientKeyRange(app: String, filter: RecipientFilter) async throws -> ClosedRange<Int64>?

    /// Keys of up to `limit` registrations that expired at or before `now`, in no particular order, of
    /// every app or (`app` set) of one app's channels. Sorting them before deleting keeps each delete
    /// batch on neighbouring pages.
    func expiredRegistrationKeys(now: Timestamp, limit: Int, app: String?) async throws -> [Int64]

    /// Deletes those of `keys` that are still expired at `now` (a renewal may have come in since they
    /// were listed) and the devices left with no registration, in one transaction. Returns how many
    /// registrations it removed.
    func deleteExpired(_ keys: [Int64], now: Timestamp) async throws -> Int

    /// Runs `body` as the only sweep on the database: instances sharing it (and `herald sweep`) take turns.
    /// With `wait` false, returns nil at once without running `body` when another sweep holds the turn.
    func exclusiveSweep<T: Sendable>(wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T?

    /// Takes the periodic sweep's turn unless it was taken less than `intervalMilliseconds` ago (by any
    /// instance, by the database's clock on PostgreSQL). True: this caller sweeps now.
    func takeSweepTurn(intervalMilliseconds: Int64, now: Timestamp) async throws -> Bool

    /// The app's stored API keys (the generated demo app's keys live here).
    func storedKeys(app: String) async throws -> [APIKey]

    /// Stores `keys` for `app` unless it has keys already; returns the keys in force and whether they were new.
    func storeKeysIfAbsent(app: String, keys: [APIKey], now: Timestamp) async throws -> (keys: [APIKey], created: Bool)
}

extension RegistrationStore {
    /// Expired registrations of every app.
    public func expiredRegistrationKeys(now: Timestamp, limit: Int) async throws -> [Int64] {
        try await expiredRegistrationKeys(now: now, limit: limit, app: nil)
    }
}

extension RegistrationStore {
    /// The app's first `limit` channels (1,000 unless told), in byte order of their names.
    public func channels(app: String, now: Timestamp, limit: Int = 1000) async throws -> [ChannelSummary] {
        try await channels(app: app, after: nil, limit: limit, now: now)
    }
}
