#if canImport(CCurl)
import Foundation
import Testing
@testable import DeviceLogin

/// CurlResponseCollector turns libcurl's header lines (line breaks included) into header fields: status lines start
/// the list afresh, folded lines continue the previous value, lines without a colon or with an empty name are
/// dropped, names and values lose their surrounding spaces and tabs, and the bounds refuse the line that crosses them.
@Suite("CurlResponseCollector")
struct CurlResponseCollectorTests {
    /// The fields after feeding `lines` in order, or nil when a line was refused.
    private static func headers(after lines: [String]) -> [HTTPHeader]? {
        var collector = CurlResponseCollector(maximumBodyBytes: 1024)
        for line in lines {
            let accepted = Array(line.utf8).withUnsafeBytes { collector.receiveHeaderLine($0) }
            guard accepted else { return nil }
        }
        return collector.headers
    }

    @Test(arguments: [
        (
            ["HTTP/1.1 200 OK\r\n", "Content-Type: application/json\r\n", "\r\n"],
            [("Content-Type", "application/json")]
        ),
        (["Cache-Control:no-store\n"], [("Cache-Control", "no-store")]),
        (["X-Name \t:  a value \t \r\n"], [("X-Name", "a value")]),
        (["X-Empty:\r\n"], [("X-Empty", "")]),
        (["X-Colons: a:b: c\r\n"], [("X-Colons", "a:b: c")]),
        (["no colon here\r\n", ": no name\r\n", "\r\n"], []),
        (["X-Fold: first\r\n", "   second  \r\n", "\tthird\r\n"], [("X-Fold", "first second third")]),
        (["  a fold with nothing before it\r\n", "A: 1\r\n"], [("A", "1")]),
        (["HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "B: 2\r\n"], [("B", "2")]),
        (["X-Bytes: caf\u{E9} \u{1F600}\r\n"], [("X-Bytes", "caf\u{E9} \u{1F600}")]),
        (["A: 1\r\n", "A: 2\r\n"], [("A", "1"), ("A", "2")]),
    ])
    func headerLinesBecomeFields(lines: [String], expected: [(String, String)]) {
        #expect(Self.headers(after: lines) == expected.map { HTTPHeader($0.0, $0.1) })
    }

    @Test func invalidUTF8IsReplacedNotDropped() {
        var collector = CurlResponseCollector(maximumBodyBytes: 1024)
        let line: [UInt8] = Array("X-Raw: a".utf8) + [0xFF, 0xFE] + Array("b\r\n".utf8)
        #expect(line.withUnsafeBytes { collector.receiveHeaderLine($0) })
        #expect(collector.headers == [HTTPHeader("X-Raw", "a\u{FFFD}\u{FFFD}b")])
    }

    @Test func theFieldAfterTheLastOneAllowedIsRefused() {
        let lines = (0...CurlResponseCollector.maximumHeaderCount).map { "X-\($0): v\r\n" }
        #expect(Self.headers(after: Array(lines.dropLast()))?.count == CurlResponseCollector.maximumHeaderCount)
        #expect(Self.headers(after: lines) == nil)
    }

    @Test func headerBytesOverTheBoundAreRefusedWithTheReason() {
        var collector = CurlResponseCollector(maximumBodyBytes: 1024)
        let line = Array(("X-Long: " + String(repeating: "a", count: 1000) + "\r\n").utf8)
        var accepted = true
        var lines = 0
        while accepted && lines < 1000 {
            accepted = line.withUnsafeBytes { collector.receiveHeaderLine($0) }
            lines += 1
        }
        #expect(!accepted)
        #expect(lines == CurlResponseCollector.maximumHeaderBytes / line.count + 1)
        #expect(collector.overflow?.kind == .responseTooLarge)
    }
}
#endif
