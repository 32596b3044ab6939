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
        if self.name == name { return true }
        var (own, other) = (self.name, name)
        let same = own.withUTF8 { own in other.withUTF8 { other in Self.sameASCIIName(own, other) } }
        return same ?? (self.name.lowercased() == name.lowercased())
    }

    /// Whether two names are the same in any case, read byte by byte where both are ASCII; nil where either is not,
    /// and only `lowercased()` can tell. Through the bytes' buffers: iterating two `UTF8View`s together cost 120
    /// instructions a byte, and the mock server looks up five fields in every request (issue 19).
    private static func sameASCIIName(_ own: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard own.count == other.count else {
            // Names of different lengths can still be equal lowercased only where one is not ASCII.
            return own.allSatisfy { $0 < 0x80 } && other.allSatisfy { $0 < 0x80 } ? false : nil
        }
        for index in own.indices {
            let (byte, otherByte) = (own[index], other[index])
            // Up to here both were ASCII and equal in any case, so what follows decides.
            guard byte < 0x80, otherByte < 0x80 else { return nil }
            if lower(byte) != lower(otherByte) { return false }
        }
        return true
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
