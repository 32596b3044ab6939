#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Dates and spans of time as the CLI writes them, for any `Date` at all: a stored expiry may lie 1e300 seconds
/// away or be NaN, and nothing here traps or prints a year RFC 3339 cannot hold.
package enum DateText {
    /// The earliest instant RFC 3339 writes: 0001-01-01T00:00:00Z.
    package static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    /// The latest instant RFC 3339 writes: 9999-12-31T23:59:59Z.
    package static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// `date` as RFC 3339 in UTC to the second (`2026-11-30T01:02:03Z`), in the proleptic Gregorian calendar
    /// RFC 3339 uses. Dates before ``earliest`` (and NaN) are written as ``earliest``, dates after ``latest`` as
    /// ``latest``.
    package static func rfc3339(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let bounded =
            interval.isNaN
            ? earliest.timeIntervalSince1970
            : min(max(interval, earliest.timeIntervalSince1970), latest.timeIntervalSince1970)
        // Within ±2.6e11 now: the conversion is exact and cannot overflow.
        let seconds = Int64(bounded.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civil(daysSince1970: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(time / 3600, 2) + ":"
            + pad(time % 3600 / 60, 2) + ":" + pad(time % 60, 2) + "Z"
    }

    /// The whole seconds from `start` to `end`, rounded toward zero and saturated at `Int.min` and `Int.max`; 0
    /// when either is NaN.
    package static func seconds(from start: Date, to end: Date) -> Int {
        let interval = end.timeIntervalSince(start)
        if interval.isNaN { return 0 }
        if interval >= Double(Int.max) { return .max }
        if interval <= Double(Int.min) { return .min }
        return Int(interval)
    }

    /// The year, month and day of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
