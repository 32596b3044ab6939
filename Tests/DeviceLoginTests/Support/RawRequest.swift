import Foundation

/// One request as a ``RawHTTPServer`` received it, byte for byte.
struct RawRequest: Sendable, Hashable {
    /// Every byte of the request: head and body.
    var bytes: [UInt8]
    /// The head: request line and header lines, without the blank line.
    var head: String
    /// The body (as many bytes as `Content-Length` said).
    var body: [UInt8]

    /// The request line, e.g. `POST /token HTTP/1.1`.
    var requestLine: String {
        head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }

    /// The whole request as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Parses a complete request from the front of `bytes`.
    /// - Returns: `nil` until the head and the whole body have arrived.
    init?(parsing bytes: [UInt8]) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let lengthText = lengthLine.map { $0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces) }
        let length = lengthText.flatMap { Int($0) } ?? 0
        let bodyStart = end + 4
        guard bytes.count >= bodyStart + length else { return nil }
        self.bytes = Array(bytes[..<(bodyStart + length)])
        self.head = head
        self.body = Array(bytes[bodyStart..<(bodyStart + length)])
    }
}
