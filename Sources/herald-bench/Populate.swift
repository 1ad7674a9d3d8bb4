import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore
import HeraldTerminal
import SQLKit

/// `herald-bench populate`: fills a fresh SQLite file with devices and registrations (see `PopulationPlan`).
struct Populate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fill a fresh database with devices and registrations, some already expired.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Devices to create, numbered from 1 (device ids dev-000000001 …).")
    var devices = 1_000_000

    @Option(help: "Channels to create.")
    var channels = 4

    @Option(help: "Registrations per device (each on a different channel).")
    var channelsPerDevice = 1

    @Option(help: "Share of devices whose registrations expired in the past hour.")
    var expired = 0.5

    @Option(help: "Share of devices whose registrations expire in a day or more; the rest never expire.")
    var expiring = 0.25

    @Option(help: "How expiration instants follow device numbers: registration (one fixed TTL) or random.")
    var expiryOrder: PopulationPlan.ExpiryOrder = .random

    @Option(
        help:
            "How device ids follow device numbers: sequential (dev-000000001 …, what bench/get.lua names) or scattered (nine digits spread over the range, as apps' UUIDs are)."
    )
    var deviceIds: PopulationPlan.DeviceIdOrder = .sequential

    @Option(help: "App id the rows belong to.")
    var app = "bench"

    @Option(help: "Percentage of devices that are ANDROID with an FCM-shaped token (0-100); the rest are IOS.")
    var androidPercent: Double = 0

    @Option(
        help:
            "Give devices registry metadata (app version, locale, model, install id, name), a last-seen time in the past 30 days, and 1% of them switched off."
    )
    var metadata = false

    @Option(help: "Messages to add to the app's history (the console's Messages page), spread over the past 29 days.")
    var messages = 0

    @Option(
        help:
            "Days of delivery statistics to add for the app (the console's Overview chart, GET …/admin/stats): minutes for the last 48 hours, hours before."
    )
    var statsDays = 0

    func validate() throws {
        guard devices > 0, channels > 0 else { throw ValidationError("--devices and --channels must be positive") }
        guard (1...channels).contains(channelsPerDevice) else { throw ValidationError("--channels-per-device must be 1...\(channels)") }
        guard expired >= 0, expiring >= 0, expired + expiring <= 1 else {
            throw ValidationError("--expired and --expiring are shares that add up to at most 1")
        }
        guard (0...100).contains(androidPercent) else { throw ValidationError("--android-percent must be 0...100") }
    }

    func run() async throws {
        let plan = PopulationPlan(
            app: app, devices: devices, channelCount: channels, channelsPerDevice: channelsPerDevice,
            expiredShare: expired, expiringShare: expiring, expiryOrder: expiryOrder, now: SystemClock().now.milliseconds,
            androidShare: androidPercent / 100, deviceIdOrder: deviceIds)
        let clock = ContinuousClock()
        let start = clock.now
        // On a terminal the count rewritten in place; in a pipe or a log, a line every tenth. On standard
        // error: the benches read the summary from standard output (`| head -1`), which a progress line
        // there would take the place of, and closing the pipe would then stop the population.
        let progress = TerminalProgress.standardError()
        do {
            try await withBackend(database) { backend in
                try await Populator(backend: backend, plan: plan, metadata: metadata).run { done in
                    progress.update(
                        Self.progressLine(done, of: plan.devices, in: clock.now - start), fraction: Double(done) / Double(plan.devices))
                }
            }
        } catch {
            progress.abandon()
            throw error
        }
        progress.finish(Self.progressLine(plan.devices, of: plan.devices, in: clock.now - start, finished: true))
        if messages > 0 {
            try await withBackend(database) { backend in
                try await MessagePopulator(backend: backend, app: app, messages: messages, channels: channels, now: plan.now).run()
            }
            print("  and \(messages) messages")
        }
        if statsDays > 0 {
            let rows = try await withBackend(database) { backend in
                try await StatsPopulator(backend: backend, app: app, days: statsDays, now: plan.now).run()
            }
            print("  and \(statsDays) days of delivery statistics (\(rows.minutes) minute rows, \(rows.hours) hour rows)")
        }
        let seconds = (clock.now - start).seconds
        // PostgreSQL plans by statistics that autovacuum gathers only up to a minute or more after a bulk
        // load; until then some of Herald's queries plan as if the tables were tiny (a recipients page read
        // all of `devices`: 60 ms a page). Gather them now, as after any bulk load, so that what is measured
        // next is the steady state. (SQLite is left without statistics, as Herald runs it.)
        try await withBackend(database) { backend in
            guard backend.dialect == .postgres else { return }
            try await backend.unboundedWrite { db in try await db.raw("ANALYZE").run() }
        }
        let rate = Double(plan.registrations) / seconds
        print(
            "populated \(plan.devices) devices, \(plan.registrations) registrations in \(format(seconds, 1)) s (\(Int(rate)) registrations/s)"
        )
        if plan.androidShare > 0 { print("  of which \(plan.androidDevices) ANDROID (FCM tokens), the rest IOS") }
        let counts = try await withBackend(database) { try await TableCounts.read($0) }
        print(counts.summary)
    }
}

extension Populate {
    /// "devices: 120,000 of 1,000,000 (12%), 45,210/s, ETA 19 s"; once finished, the time taken instead of the ETA.
    static func progressLine(_ done: Int, of total: Int, in elapsed: Duration, finished: Bool = false) -> String {
        let percent = ProgressFormat.percent(done, of: total)
        var parts = ["devices: \(ProgressFormat.count(done)) of \(ProgressFormat.count(total)) (\(percent)%)"]
        if let rate = ProgressFormat.rate(done, in: elapsed) { parts.append(rate) }
        if finished {
            parts.append(ProgressFormat.duration(elapsed))
        } else if let remaining = ProgressFormat.remaining(done, of: total, in: elapsed) {
            parts.append("ETA \(remaining)")
        }
        return parts.joined(separator: ", ")
    }
}

extension PopulationPlan.ExpiryOrder: ExpressibleByArgument {}
extension PopulationPlan.DeviceIdOrder: ExpressibleByArgument {}
