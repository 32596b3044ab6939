#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HTTPS rule every endpoint passes before a request is built (RFC 6749 §10, RFC 8628 §5).
///
/// HTTPS is required, except for loopback hosts (`127.0.0.0/8`, `::1`, `localhost`), unless the caller
/// explicitly allows plain HTTP.
public enum EndpointPolicy {
    /// Whether `host` is a loopback name or address.
    public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in UInt8(part).map { _ in true } ?? false }
    }

    /// Checks that `url` may carry credentials.
    /// - Parameters:
    ///   - url: The endpoint.
    ///   - allowInsecureHTTP: Whether plain HTTP is allowed to any host.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/insecureURL`` when the URL is not acceptable.
    public static func check(_ url: URL, allowInsecureHTTP: Bool) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        guard let host = url.host, !host.isEmpty else {
            throw TransportError(.insecureURL, "endpoint \(displayed(url)) has no host")
        }
        // libcurl would send `user:password@` as HTTP Basic, and every error would echo it.
        guard url.user == nil, url.password == nil else {
            throw TransportError(
                .insecureURL,
                "endpoint on \(host) has a user name or password in its URL; give client credentials separately"
            )
        }
        switch scheme {
        case "https":
            return
        case "http":
            if allowInsecureHTTP || isLoopback(host: host) { return }
            throw TransportError(
                .insecureURL,
                "refusing plain HTTP to \(host): use https, or allow insecure HTTP explicitly"
            )
        default:
            throw TransportError(.insecureURL, "endpoint \(displayed(url)) is not an http(s) URL")
        }
    }

    /// The URL as it may appear in a message: without user information, query or fragment.
    static func displayed(_ url: URL) -> String {
        let scheme = url.scheme.map { "\($0)://" } ?? ""
        let port = url.port.map { ":\($0)" } ?? ""
        return scheme + (url.host ?? "") + port + url.path
    }
}
