#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One HTTP request as the core library sends it: a method, an absolute URL, headers and an optional body.
///
/// Requests are plain values so that a transport (libcurl, URLSession, or the testing kit's in-process
/// transport) can be swapped without the engine knowing.
public struct HTTPRequest: Sendable, Hashable {
    /// The HTTP method.
    public enum Method: String, Sendable, Hashable {
        case get = "GET"
        case post = "POST"
    }

    /// The request method.
    public var method: Method
    /// The absolute URL.
    public var url: URL
    /// Header fields in the order they are sent. Names are compared case-insensitively by ``header(_:)``.
    public var headers: [HTTPHeader]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The absolute URL.
    ///   - headers: Header fields, in order.
    ///   - body: The body, if any.
    public init(method: Method, url: URL, headers: [HTTPHeader] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of the first header with this name (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.hasName(name) }?.value
    }

    /// The body as UTF-8 text, or an empty string when there is none.
    public var bodyText: String {
        body.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// One HTTP header field.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name as sent.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension HTTPHeader {
    /// Whether the field's name is `name` in any case: what comparing both `lowercased()` says, without making two
    /// strings for every field looked at when both names are ASCII, as field names are (every response's
    /// `Content-Type` is looked up this way).
    func hasName(_ name: String) -> Bool {
        let (own, other) = (self.name.utf8, name.utf8)
        guard own.allSatisfy({ $0 < 0x80 }), other.allSatisfy({ $0 < 0x80 }) else {
            return self.name.lowercased() == name.lowercased()
        }
        return own.count == other.count && zip(own, other).allSatisfy { Self.lower($0) == Self.lower($1) }
    }

    /// An ASCII byte in lower case.
    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension HTTPHeader: CustomStringConvertible {
    /// The header as `Name: value`, with the value of credential-bearing fields redacted.
    public var description: String {
        let secretNames = ["authorization", "cookie", "set-cookie", "proxy-authorization"]
        return secretNames.contains(name.lowercased()) ? "\(name): <redacted>" : "\(name): \(value)"
    }
}
