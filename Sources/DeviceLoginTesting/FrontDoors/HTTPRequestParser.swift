import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads one HTTP/1.1 request from bytes as they arrive, within fixed limits (RFC 9112).
///
/// Pure: it never touches a socket, so every limit is tested without one. Only what the mock server needs is
/// understood: `GET` and `POST`, origin-form targets, `Content-Length` bodies. Anything else is refused with the
/// status a real server would send.
///
/// One parser reads one request. On a kept-alive connection, bytes past the end of the request (a pipelined next
/// request) are kept in ``leftover`` for the next parser, never read as part of this one; ``keepsAlive`` says
/// whether the client allows the connection to carry another request (RFC 9112 §9.3).
struct HTTPRequestParser {
    /// What the bytes so far amount to.
    enum Progress: Equatable {
        /// The request is not complete yet.
        case needMore
        /// A complete request.
        case complete(HTTPRequest)
        /// A request to refuse with this status, then close.
        case failure(status: Int, reason: String)
    }

    private let limits: LoopbackServer.Limits
    private let origin: String
    private var buffer: [UInt8] = []
    /// Where the body starts and how long it is, once the head is read.
    private var head: (request: HTTPRequest, bodyStart: Int, bodyLength: Int)?
    /// Whether the head allows the connection to stay open after the answer.
    private var persistent = false

    /// Creates a parser.
    /// - Parameters:
    ///   - limits: The size limits.
    ///   - origin: `http://127.0.0.1:port`, to make the request URL absolute.
    init(limits: LoopbackServer.Limits, origin: String) {
        self.limits = limits
        self.origin = origin
    }

    /// Adds bytes and says where the request stands. After `.complete` or `.failure`, further bytes are ignored
    /// by the caller.
    mutating func feed(_ bytes: some Collection<UInt8>) -> Progress {
        buffer.append(contentsOf: bytes)
        if head == nil {
            switch readHead() {
            case .needMore: return .needMore
            case .failure(let status, let reason): return .failure(status: status, reason: reason)
            case .complete: break
            }
        }
        guard let head else { return .needMore }
        guard buffer.count >= head.bodyStart + head.bodyLength else { return .needMore }
        var request = head.request
        if head.bodyLength > 0 {
            request.body = Data(buffer[head.bodyStart..<(head.bodyStart + head.bodyLength)])
        }
        return .complete(request)
    }

    /// Whether the client lets the connection carry another request once this one is answered: an HTTP/1.1
    /// request without the `close` connection option, or an HTTP/1.0 one with `keep-alive` (RFC 9112 §9.3).
    /// `false` until the head is read.
    var keepsAlive: Bool { head != nil && persistent }

    /// The bytes received after the end of a complete request: the start of the next one on a kept-alive
    /// connection. Empty until the request is complete.
    var leftover: ArraySlice<UInt8> {
        guard let head, buffer.count >= head.bodyStart + head.bodyLength else { return [] }
        return buffer[(head.bodyStart + head.bodyLength)...]
    }

    private enum HeadProgress {
        case needMore, complete
        case failure(Int, String)
    }

    private mutating func readHead() -> HeadProgress {
        guard let end = headEnd() else {
            if firstLineEnd() == nil, buffer.count > limits.maximumRequestLineBytes {
                return .failure(414, "the request line is too long")
            }
            if buffer.count > limits.maximumHeaderBytes {
                return .failure(431, "the request head is too large")
            }
            return .needMore
        }
        guard end.headLength <= limits.maximumHeaderBytes else {
            return .failure(431, "the request head is too large")
        }
        // Split on bytes: in a Swift string "\r\n" is one character, and "\n" would not split it.
        let lines = buffer[..<end.headLength]
            .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { line in
                let content = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
                return Substring(String(decoding: content, as: UTF8.self))
            }
        guard let requestLine = lines.first, requestLine.utf8.count <= limits.maximumRequestLineBytes else {
            return .failure(414, "the request line is too long")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return .failure(400, "the request line is malformed")
        }
        let method: HTTPRequest.Method
        switch parts[0] {
        case "GET": method = .get
        case "POST": method = .post
        default: return .failure(405, "the method \(parts[0]) is not allowed")
        }
        let target = String(parts[1])
        guard target.hasPrefix("/"), let url = URL(string: origin + target) else {
            return .failure(400, "the request target is malformed")
        }

        var headers: [HTTPHeader] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(" "), !line[..<colon].contains("\t")
            else {
                return .failure(400, "a header line is malformed")
            }
            let value = Self.trimmingBlanks(line[line.index(after: colon)...])
            headers.append(HTTPHeader(String(line[..<colon]), value))
        }
        guard headers.count <= limits.maximumHeaderCount else {
            return .failure(431, "there are too many header fields")
        }
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            return .failure(501, "transfer codings are not supported; send Content-Length")
        }
        let lengths = Set(headers.filter { $0.name.lowercased() == "content-length" }.map(\.value))
        guard lengths.count <= 1 else { return .failure(400, "Content-Length is given twice with different values") }
        var bodyLength = 0
        if let text = lengths.first {
            guard let length = Int(text), length >= 0, text.allSatisfy(\.isASCII) else {
                return .failure(400, "Content-Length is not a number")
            }
            guard length <= limits.maximumBodyBytes else { return .failure(413, "the body is too large") }
            bodyLength = length
        }
        head = (HTTPRequest(method: method, url: url, headers: headers), end.bodyStart, bodyLength)
        persistent = Self.isPersistent(version: parts[2], headers: headers)
        return .complete
    }

    /// Where the head ends (after the empty line) and the body starts.
    private func headEnd() -> (headLength: Int, bodyStart: Int)? {
        var index = 0
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                if index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "\n") {
                    return (index + 1, index + 2)
                }
                if index + 2 < buffer.count, buffer[index + 1] == UInt8(ascii: "\r"),
                    buffer[index + 2] == UInt8(ascii: "\n")
                {
                    return (index + 1, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// Whether a request of this version and these header fields leaves its connection open (RFC 9112 §9.3):
    /// HTTP/1.1 does unless a `Connection` field lists `close`; HTTP/1.0 does only when one lists `keep-alive`.
    private static func isPersistent(version: Substring, headers: [HTTPHeader]) -> Bool {
        let options = headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",") }
            .map { trimmingBlanks($0) }
        if options.contains("close") { return false }
        return version == "HTTP/1.1" || options.contains("keep-alive")
    }

    /// The text without the spaces and tabs around it (RFC 9112 §5: optional whitespace around a field value).
    private static func trimmingBlanks(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }),
            let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(text[first...last])
    }

    private func firstLineEnd() -> Int? {
        buffer.firstIndex(of: UInt8(ascii: "\n"))
    }
}

extension HTTPResponse {
    /// The response as HTTP/1.1 bytes, closing the connection after it.
    var wireBytes: [UInt8] { wireBytes(keepAlive: false) }

    /// The response as HTTP/1.1 bytes.
    ///
    /// `Content-Length` and `Connection` are written here; the same headers from the model are dropped.
    /// - Parameter keepAlive: Whether the connection stays open for another request (`Connection: keep-alive`)
    ///   or is closed after this response (`Connection: close`).
    func wireBytes(keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(WireWriter.reasonPhrase(status))\r\n"
        let managed: Set<String> = ["content-length", "connection", "transfer-encoding"]
        for header in headers where !managed.contains(header.name.lowercased()) {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(head.utf8) + body
    }
}
