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
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
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

extension HTTPHeader: CustomStringConvertible {
    /// The header as `Name: value`, with the value of credential-bearing fields redacted.
    public var description: String {
        let secretNames = ["authorization", "cookie", "set-cookie", "proxy-authorization"]
        return secretNames.contains(name.lowercased()) ? "\(name): <redacted>" : "\(name): \(value)"
    }
}
