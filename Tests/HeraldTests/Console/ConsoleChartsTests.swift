import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HummingbirdTesting
import Testing

/// The console's charts and live progress (issue 54) over the whole server: fan-outs through Herald to the
/// mock APNs and FCM fill the delivery statistics, and the Overview charts them (the right bars, the same
/// numbers in the table, the last hour and the last 7 days); a message's page and the Overview's running
/// list show each fan-out's progress, also as Server-Sent Events; a device's page draws its history.
@Suite struct ConsoleChartsTests {
    /// The part of `page` from `start` to the next `end`.
    static func section(_ page: String, from start: String, to end: String) throws -> String {
        let range = try #require(page.range(of: start), "no \(start)")
        let rest = page[range.lowerBound...]
        return String(rest[..<(rest.range(of: end)?.upperBound ?? rest.endIndex)])
    }

    /// The value of `name="…"` in a tag's text.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[start.upperBound...].prefix { $0 != "\"" })
    }

    /// A chart's bars as "series@bucket" → value.
    static func bars(_ svg: String) -> [String: Int64] {
        var found: [String: Int64] = [:]
        for part in svg.components(separatedBy: "<rect ").dropFirst() {
            let tag = part.prefix { $0 != ">" }
            guard tag.contains("class=\"bar\""), let series = attribute("data-series", in: tag),
                let bucket = attribute("data-bucket", in: tag), let value = attribute("data-value", in: tag).flatMap({ Int64($0) })
            else { continue }
            found["\(series)@\(bucket)"] = value
        }
        return found
    }

    /// A stats table's rows (`tbody` or `tfoot`) as column → value, in order.
    static func rows(_ table: String, _ part: String) throws -> [[String: String]] {
        let body = try section(table, from: "<\(part)>", to: "</\(part)>")
        return body.components(separatedBy: "<tr>").dropFirst().map { row in
            var cells: [String: String] = [:]
            for cell in row.components(separatedBy: "<td ").dropFirst() {
                let tag = cell.prefix { $0 != ">" }
                guard let column = attribute("data-column", in: tag) else { continue }
                cells[column] = String(cell.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
            }
            return cells
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func theOverviewChartsWhatTheFanOutsDidAndTheTableHoldsTheSameNumbers(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<8)
            try await h.registerDevices(20..<22, os: "ANDROID")
            h.clock.advance(milliseconds: 5_000)
            // One token gone (removed), one refused (deactivated): invalid token; one throttled and one failing
            // on every attempt; one payload refused once.
            h.mock.script(token: PublishHarness.token(1), .unregistered(timestamp: registeredAt + 1_000), times: 1)
            h.mock.script(token: PublishHarness.token(2), .badDeviceToken, times: 1)
            h.mock.script(token: PublishHarness.token(3), .reject(status: 413, reason: "PayloadTooLarge"), times: 1)
            h.mock.script(token: PublishHarness.token(4), .tooManyRequests, times: nil)
            h.mock.script(token: PublishHarness.token(5), .internalServerError, times: nil)
            let first = try await h.publish("news", #"{"message": "One"}"#)
            let firstAt = h.clock.now
            try await h.waitFor(first, status: "published")
            // Two hours later, to the devices left: 0, 3 (accepted now), 4, 5, 6 and 7.
            h.clock.advance(milliseconds: 2 * 3_600_000)
            let second = try await h.publish("news", #"{"message": "Two"}"#)
            try await h.waitFor(second, status: "published")

            let cookie = try await ConsoleTests.login(h.client)
            let overview = try await ConsoleTests.send(h.client, .get, "/console", cookie: cookie)
            #expect(overview.status == .ok)
            #expect(overview.body.contains(#"<a href="/console?range=1h#deliveries" aria-current="page">Last hour</a>"#))
            let apns = try Self.section(overview.body, from: #"<figure class="chart" data-provider="apns">"#, to: "</figure>")
            // The last hour by minute: the second fan-out, in the window's last minute (60 buckets, 0…59).
            #expect(Self.bars(apns) == ["sent@59": 4, "throttled@59": 1, "service@59": 1], "\(apns)")
            #expect(apns.contains(#"role="img""#) && apns.contains("<desc id=\"chart-apns-desc\">"))
            #expect(
                apns.contains("APNs, per minute over the last hour: 4 sent, 2 failed (throttled 1, service error 1), 0 tokens removed."))
            #expect(apns.contains(">Failed, by reason</text>") && apns.contains(">Tokens removed: none</text>"))
            let apnsRows = try Self.rows(apns, "tbody")
            #expect(
                apnsRows == [
                    ["sent": "4", "invalid_token": "0", "throttled": "1", "service": "1", "auth": "0", "other": "0", "tokens-removed": "0"]
                ])
            #expect(apns.contains(#"<th scope="col" class="number">Throttled</th>"#) && apns.contains("<caption>APNs, per minute"))
            let fcm = try Self.section(overview.body, from: #"<figure class="chart" data-provider="fcm">"#, to: "</figure>")
            #expect(Self.bars(fcm) == ["sent@59": 2], "\(fcm)")
            #expect(!overview.body.contains(#"data-provider="webPush""#), "a service with nothing sent has no chart")
            #expect(overview.body.contains(#"<ul class="legend" aria-label="Legend">"#))
            for label in ["Sent", "Invalid token", "Throttled", "Service error", "Credentials refused", "Other refusal", "Tokens removed"] {
                #expect(overview.body.contains("</svg>\(label)</li>"), "legend: \(label)")
            }
            #expect(!overview.body.contains("style="), "no inline style: the CSP refuses it")

            // The last 7 days by hour: both fan-outs, two hours apart (168 buckets, the last one now).
            let week = try await ConsoleTests.send(h.client, .get, "/console?range=7d", cookie: cookie)
            #expect(week.body.contains(#"aria-current="page">Last 7 days</a>"#))
            let weekly = try Self.section(week.body, from: #"<figure class="chart" data-provider="apns">"#, to: "</figure>")
            #expect(
                Self.bars(weekly) == [
                    "sent@165": 3, "invalid-token@165": 2, "throttled@165": 1, "service@165": 1, "other@165": 1, "tokens-removed@165": 1,
                    "sent@167": 4, "throttled@167": 1, "service@167": 1,
                ], "\(weekly)")
            let weekRows = try Self.rows(weekly, "tbody")
            #expect(weekRows.count == 2 && weekRows.first?["invalid_token"] == "2" && weekRows.first?["tokens-removed"] == "1")
            #expect(
                try Self.rows(weekly, "tfoot") == [
                    ["sent": "7", "invalid_token": "2", "throttled": "2", "service": "2", "auth": "0", "other": "1", "tokens-removed": "1"]
                ])
            #expect(weekly.contains("<caption>APNs, per hour over the last 7 days (hours with nothing sent left out)</caption>"))
            // The first row's time is the first fan-out's hour.
            let hour = StatsStep.hour.bucket(firstAt)
            let utc = Date(timeIntervalSince1970: Double(hour.milliseconds) / 1000).formatted(Date.ISO8601FormatStyle())
            #expect(weekly.contains(#"<tr><th scope="row"><time datetime="\#(utc)""#), "\(utc)")
            let fcmWeek = try Self.section(week.body, from: #"<figure class="chart" data-provider="fcm">"#, to: "</figure>")
            #expect(Self.bars(fcmWeek) == ["sent@165": 2, "sent@167": 2])

            // The first message's page: finished, its bar full with its final counts, and its sends per second.
            let page = try await ConsoleTests.send(h.client, .get, "/console/messages/\(first)", cookie: cookie)
            #expect(page.body.contains(#"<progress data-bar value="10" max="10""#), "\(page.body)")
            #expect(page.body.contains(#"<span class="progress-text" data-field="progress-text">10 of 10 · done</span>"#))
            let spark = try Self.section(page.body, from: #"<figure class="spark" id="sends-per-second">"#, to: "</figure>")
            #expect(spark.contains(#"class="sparkline""#) && spark.contains(#"role="img""#) && spark.contains(#"data-points="1""#))
            #expect(spark.contains("10 sends in 1 s: peak 10/s at "), "\(spark)")
            #expect(spark.contains("average 10/s."))
        }
    }

    @Test func withNothingSentTheOverviewSaysSoForEitherWindow() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let hour = try await ConsoleTests.send(h.client, .get, "/console", cookie: cookie)
            #expect(hour.body.contains(#"<p class="empty" id="deliveries-empty">Nothing was sent in the last hour.</p>"#))
            #expect(!hour.body.contains("<figure class=\"chart\""))
            let week = try await ConsoleTests.send(h.client, .get, "/console?range=7d", cookie: cookie)
            #expect(week.body.contains("Nothing was sent in the last 7 days."))
            let unknown = try await ConsoleTests.send(h.client, .get, "/console?range=forever", cookie: cookie)
            #expect(
                unknown.status == .ok && unknown.body.contains("Nothing was sent in the last hour."), "an unknown window is the last hour")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aRunningFanOutShowsItsProgressOnItsPageAndInTheOverviewsStream(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, setup: .live) { h in
            try await h.registerDevices(0..<8)
            // Half the devices answer after three seconds: the fan-out runs that long, its one page open.
            for index in 0..<4 { h.mock.script(token: PublishHarness.token(index), .delay(milliseconds: 3_000, then: .accept), times: 1) }
            let id = try await h.publish("news", #"{"message": "Slow"}"#)
            // The API says "scheduled" until it is published; the store knows it runs.
            for _ in 0..<200 where try await h.messages.message(app: "shop", id: id)?.status != .running {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await h.messages.message(app: "shop", id: id)?.status == .running)
            let cookie = try await ConsoleTests.login(h.client)
            let port = try #require(h.client.port)

            let page = try await ConsoleTests.send(h.client, .get, "/console/messages/\(id)", cookie: cookie)
            #expect(page.body.contains("data-progress=\"/console/messages/\(id)/progress\""))
            #expect(page.body.contains(#"<progress data-bar value="0" max="8""#), "\(page.body)")
            #expect(page.body.contains("0 of 8 · measuring the rate"), "the 8 recipients counted, exactly")

            let running = try SSEClient(port: port, path: "/console/running/progress", cookie: "herald_console=\(cookie)")
            #expect(try await running.head() == 200)
            #expect(running.headers["content-type"] == "text/event-stream; charset=utf-8")
            let opening = try #require(try await running.events(1).first)
            let event = try JSONValue.parse(Array(opening.data.utf8))
            let html = try #require(event["html"].flatMap { if case .string(let text) = $0 { text } else { nil } })
            #expect(html.contains("<tr data-message=\"\(id)\">") && html.contains(#"<progress data-bar value="0" max="8""#), "\(html)")
            #expect(event["messages"]?[id]?["bar-max"] == .string("8"), "\(opening.data)")
            #expect(event["messages"]?[id]?["progress-text"].map { "\($0)" }?.contains("0 of 8") == true, "\(opening.data)")

            let follow = try SSEClient(port: port, path: "/console/messages/\(id)/progress", cookie: "herald_console=\(cookie)")
            #expect(try await follow.head() == 200)
            // When it ends: the list again, without it; its page's stream ends with the bar full.
            var ended = false
            for _ in 0..<40 where !ended {
                for event in try await running.events(1, within: .seconds(1)) {
                    ended = event.data.contains("Nothing is being sent right now.")
                }
            }
            #expect(ended, "the Overview's stream sends the list again when the fan-out ends")
            #expect(try await follow.waitForEnd(within: .seconds(20)))
            let events = try await follow.events(100, within: .milliseconds(100))
            let last = try JSONValue.parse(Array(try #require(events.last).data.utf8))
            #expect(last["done"] == .string("true") && last["state"] == .string("published"))
            #expect(last["bar-value"] == .string("8") && last["bar-max"] == .string("8") && last["percent"] == .string("100 %"))
            #expect(last["progress-text"] == .string("8 of 8 · done"))
        }
    }

    @Test func aDevicesPageDrawsItsDeliveriesAndLaunchesOnATimeline() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<2)
            for version in ["1.0", "1.1"] {
                let launch = try await h.client.call(
                    .post, "/shop/k-client/devices/dev-0/launches", json: #"{"appVersion": "\#(version)"}"#)
                #expect(launch.status == .ok, "\(launch.body)")
            }
            let sent = try await h.publish("news", #"{"message": "One"}"#)
            try await h.waitFor(sent, status: "published")
            h.clock.advance(milliseconds: 90_000)
            h.mock.script(token: PublishHarness.token(0), .reject(status: 413, reason: "PayloadTooLarge"), times: 1)
            let refused = try await h.publish("news", #"{"message": "Two"}"#)
            try await h.waitFor(refused, status: "published")

            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/devices/dev-0", cookie: cookie)
            let figure = try Self.section(page.body, from: #"<figure class="timeline">"#, to: "</figure>")
            #expect(figure.contains(#"data-chart="device-timeline""#) && figure.contains(#"role="img""#))
            #expect(figure.components(separatedBy: #"data-lane="sent""#).count - 1 == 1, "\(figure)")
            #expect(figure.components(separatedBy: #"data-lane="failed""#).count - 1 == 1)
            #expect(figure.components(separatedBy: #"data-lane="launch""#).count - 1 == 2)
            #expect(!figure.contains(#"data-lane="removed""#))
            #expect(figure.contains("1 sent, 1 failed, 0 with the token removed or the device switched off, 2 launches."), "\(figure)")
            #expect(figure.contains("failed (PayloadTooLarge), \(refused)"), "\(figure)")
            // The tables keep the numbers.
            #expect(
                page.body.contains("<caption>The 20 newest launches</caption>")
                    && page.body.contains("<caption>The 20 newest deliveries</caption>"))
        }
    }
}
