import Foundation
import HeraldCore

/// Times as the charts write them, in UTC: a chart is drawn on the server, which does not know the
/// browser's time zone (the tables beside it show `ConsolePage.time`, which console.js localises).
struct UTCText {
    let weekday: String
    let day: Int
    let month: String
    let hour: Int
    let minute: Int
    let second: Int

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    init(_ time: Timestamp) {
        let parts = Self.calendar.dateComponents(
            [.weekday, .day, .month, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
        weekday = Self.weekdays[((parts.weekday ?? 1) - 1) % 7]
        day = parts.day ?? 0
        month = Self.months[((parts.month ?? 1) - 1) % 12]
        hour = parts.hour ?? 0
        minute = parts.minute ?? 0
        second = parts.second ?? 0
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "14:05".
    var clock: String { "\(Self.twoDigits(hour)):\(Self.twoDigits(minute))" }
    /// "14:05:09".
    var clockSeconds: String { "\(clock):\(Self.twoDigits(second))" }
    /// "7 Dec".
    var date: String { "\(day) \(month)" }
    /// "Mon 7 Dec 14:05:09 UTC".
    var full: String { "\(weekday) \(date) \(clockSeconds) UTC" }
}
