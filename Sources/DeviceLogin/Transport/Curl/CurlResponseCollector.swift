#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Gathers a response's header lines and body as libcurl hands them over, within fixed bounds.
///
/// When a bound is crossed the collector refuses the data (so the transfer stops at once) and keeps the reason
/// in ``overflow``. Header lines arrive one at a time, status lines included; a new status line (an interim
/// `1xx` response, or a proxy's answer to `CONNECT`) starts the header list afresh.
struct CurlResponseCollector {
    /// The most header fields kept for one response.
    static let maximumHeaderCount = 128
    /// The most header bytes accepted for a whole exchange, interim responses included.
    static let maximumHeaderBytes = 64 * 1024

    /// The largest body accepted.
    let maximumBodyBytes: Int
    /// The header fields of the latest response, in order.
    private(set) var headers: [HTTPHeader] = []
    /// The body received so far.
    private(set) var body = Data()
    /// Why data was refused, once it was.
    private(set) var overflow: TransportError?
    private var headerBytes = 0

    /// Creates an empty collector.
    /// - Parameter maximumBodyBytes: The largest body accepted.
    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Takes one header line (with its line break).
    ///
    /// The line is read as bytes and only the name and value become strings: every response of every poll passes
    /// here, and String's `first`, `firstIndex(of:)` and trimming go by Character (grapheme breaking), which cost
    /// about 50,000 instructions a response (callgrind, issue 19) for what are ASCII delimiters (RFC 9112 §5: a field
    /// line is name, colon, optional whitespace — spaces and tabs — value, optional whitespace).
    /// - Returns: Whether the line was accepted; `false` means a bound was crossed and the transfer must stop.
    mutating func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maximumHeaderBytes else {
            return refuse("the response headers are larger than \(Self.maximumHeaderBytes) bytes")
        }
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == Self.lineFeed || bytes[end - 1] == Self.carriageReturn {
            end -= 1
        }
        let line = bytes[..<end]
        if line.starts(with: "HTTP/".utf8) {
            headers.removeAll()
        } else if let first = line.first, first == Self.space || first == Self.tab {
            // An obsolete folded continuation (RFC 9112 §5.2): it belongs to the previous field's value.
            guard let last = headers.indices.last else { return true }
            headers[last].value += " " + Self.trimmedText(line)
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            guard headers.count < Self.maximumHeaderCount else {
                return refuse("the response has more than \(Self.maximumHeaderCount) header fields")
            }
            let name = Self.trimmedText(line[..<colon])
            if !name.isEmpty {
                headers.append(HTTPHeader(name, Self.trimmedText(line[(colon + 1)...])))
            }
        }
        return true
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The bytes as text (invalid UTF-8 replaced), without the spaces, tabs and line breaks around them: what
    /// `String.trimmed()` gives, done on the bytes.
    private static func trimmedText(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let isSpace = { (byte: UInt8) in byte == space || byte == tab || byte == lineFeed || byte == carriageReturn }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Takes one piece of the body.
    /// - Returns: Whether it was accepted; `false` means the body outgrew its limit and the transfer must stop.
    mutating func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= maximumBodyBytes - body.count else {
            return refuse(Self.bodyTooLarge(limit: maximumBodyBytes))
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// The message for a body over `limit` bytes.
    static func bodyTooLarge(limit: Int) -> String {
        "the response body is larger than the \(limit)-byte limit"
    }

    private mutating func refuse(_ message: String) -> Bool {
        overflow = TransportError(.responseTooLarge, message)
        return false
    }
}
