#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP response as a transport hands it back: the status, the headers and the (size-bounded) body.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields in the order received.
    public var headers: [HTTPHeader]
    /// The body. Transports bound its size (``TransportOptions/maximumResponseBytes``).
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header with this name (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.hasName(name) }?.value
    }

    /// The media type of the body without parameters, lower-cased (`application/json`), if given.
    public var mediaType: String? {
        guard let value = header("Content-Type") else { return nil }
        // The usual answer, read without the `Character` work below (every poll's answer is read here).
        if value == "application/json" { return value }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return type.trimmed().lowercased()
    }

    /// The `Retry-After` header as a number of seconds, when it is given in seconds (RFC 9110 §10.2.3).
    ///
    /// The HTTP-date form is ignored: it needs a wall clock the engine does not trust across machines.
    public var retryAfterSeconds: Int? {
        guard let raw = header("Retry-After")?.trimmed(),
            let seconds = Int(raw), seconds >= 0
        else { return nil }
        return min(seconds, 86_400)
    }
}
