import Foundation
import Testing

@testable import DeviceLogin

@Suite("DateText: any date, written sanely")
struct DateTextTests {
    @Test(
        "RFC 3339 in UTC, proleptic Gregorian, held to the years 0001 to 9999",
        arguments: [
            (0, "1970-01-01T00:00:00Z"), (1_800_000_060, "2027-01-15T08:01:00Z"),
            (1_800_000_060.999, "2027-01-15T08:01:00Z"),
            (-1, "1969-12-31T23:59:59Z"), (951_782_400, "2000-02-29T00:00:00Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (-12_219_292_800, "1582-10-15T00:00:00Z"), (-12_219_292_801, "1582-10-14T23:59:59Z"),
            (-62_135_596_800, "0001-01-01T00:00:00Z"), (-62_135_596_801, "0001-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"), (253_402_300_800, "9999-12-31T23:59:59Z"),
            (1e300, "9999-12-31T23:59:59Z"), (-1e300, "0001-01-01T00:00:00Z"), (9.3e18, "9999-12-31T23:59:59Z"),
            (.infinity, "9999-12-31T23:59:59Z"), (-.infinity, "0001-01-01T00:00:00Z"), (.nan, "0001-01-01T00:00:00Z"),
        ])
    func rfc3339(seconds: Double, text: String) {
        #expect(DateText.rfc3339(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("the same as Foundation's ISO 8601 text on every 37th day from 1600 to 2400")
    func agreesWithFoundation() {
        for day in stride(from: -135_140, through: 157_000, by: 37) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400 + 45_296)
            #expect(DateText.rfc3339(date) == date.ISO8601Format(), "day \(day)")
        }
    }

    @Test(
        "whole seconds between two dates, saturated instead of trapping",
        arguments: [
            (0.0, 0), (59.9, 59), (-59.9, -59), (1e300, Int.max), (-1e300, Int.min), (9.3e18, Int.max),
            (9_223_372_036_854_775_808, Int.max), (9_223_372_036_854_774_784, 9_223_372_036_854_774_784),
            (.infinity, Int.max), (-.infinity, Int.min), (.nan, 0),
        ])
    func seconds(interval: Double, whole: Int) {
        let start = Date(timeIntervalSince1970: 0)
        #expect(DateText.seconds(from: start, to: Date(timeIntervalSince1970: interval)) == whole)
    }
}
