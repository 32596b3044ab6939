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
    /// - Returns: Whether the line was accepted; `false` means a bound was crossed and the transfer must stop.
    mutating func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maximumHeaderBytes else {
            return refuse("the response headers are larger than \(Self.maximumHeaderBytes) bytes")
        }
        let end = bytes.lastIndex { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }.map { $0 + 1 } ?? 0
        let line = String(decoding: bytes[..<end], as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
        } else if line.first == " " || line.first == "\t" {
            // An obsolete folded continuation (RFC 9112 §5.2): it belongs to the previous field's value.
            guard let last = headers.indices.last else { return true }
            headers[last].value += " " + line.trimmed()
        } else if let colon = line.firstIndex(of: ":") {
            guard headers.count < Self.maximumHeaderCount else {
                return refuse("the response has more than \(Self.maximumHeaderCount) header fields")
            }
            let name = String(line[..<colon]).trimmed()
            if !name.isEmpty {
                headers.append(HTTPHeader(name, line[line.index(after: colon)...].trimmed()))
            }
        }
        return true
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
