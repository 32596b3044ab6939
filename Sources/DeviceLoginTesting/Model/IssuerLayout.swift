#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a mock server's endpoints live under its issuer, and which endpoint a request path names.
struct IssuerLayout: Sendable, Hashable {
    /// The issuer identifier, without a trailing slash.
    let issuer: String
    /// The issuer's path, without a trailing slash: empty for `https://host`, `/tenant` for `https://host/tenant`.
    let issuerPath: String
    /// `scheme://host:port`, lower-cased with the port explicit; empty when the issuer is not an absolute URL.
    let origin: String

    init(_ issuer: String) {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.issuer = trimmed
        let url = URL(string: trimmed)
        var path = url?.path ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        issuerPath = path
        origin = url.map(Self.origin(of:)) ?? ""
    }

    /// `scheme://host:port` of a URL, lower-cased, with the default port made explicit.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// The absolute URL of an endpoint path.
    func url(_ relativePath: String) -> String {
        issuer + relativePath
    }

    /// The endpoint a request path names.
    func endpoint(
        for path: String, paths: MockAuthorizationServer.Paths
    ) -> MockAuthorizationServer.Endpoint {
        switch path {
        case issuerPath + "/.well-known/openid-configuration": return .openIDConfiguration
        case "/.well-known/oauth-authorization-server" + issuerPath: return .authorizationServerMetadata
        case issuerPath + paths.deviceAuthorization: return .deviceAuthorization
        case issuerPath + paths.token: return .token
        case issuerPath + paths.authorization: return .authorization
        case issuerPath + paths.revocation: return .revocation
        case issuerPath + paths.userinfo: return .userinfo
        case issuerPath + paths.verification: return .verificationPage
        case issuerPath + paths.jwks: return .jwks
        case issuerPath + paths.resource: return .resource
        default: return .unknown
        }
    }

    /// This layout with the scheme, host and port of `origin` (`http://127.0.0.1:8080`), keeping the path.
    func rebased(onto origin: String) -> IssuerLayout {
        IssuerLayout(origin + issuerPath)
    }
}
