import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockAuthorizationServer {
    /// How the mock serves the authorization code grant (RFC 6749 §4.1 with PKCE, RFC 7636).
    ///
    /// The authorization endpoint stands in for the browser and the person: a `GET` is answered at once with the
    /// `302` redirect a real server sends after sign-in, approved or denied as set here. The rules are enforced
    /// whatever the setting, and each one broken is counted in ``MockAuthorizationServer/violations``: PKCE with
    /// S256 (RFC 9700 §2.1.1), `state`, a registered redirect URI, a code redeemed once, with its verifier and the
    /// identical redirect URI.
    public struct CodeGrantSettings: Sendable, Hashable {
        /// Whether the person approves (true, the default) or declines (`access_denied`).
        public var approves: Bool
        /// Whether the redirect carries `iss` and the metadata says so (RFC 9207). Default true.
        public var sendsIssuer: Bool
        /// `code_challenge_methods_supported` in the metadata. Default `["S256"]`.
        public var advertisedChallengeMethods: [String]?
        /// How long a code may be redeemed, in seconds. Default 60.
        public var codeLifetime: Int

        /// Creates settings; every parameter has the default documented on its property.
        public init(
            approves: Bool = true, sendsIssuer: Bool = true, advertisedChallengeMethods: [String]? = ["S256"],
            codeLifetime: Int = 60
        ) {
            self.approves = approves
            self.sendsIssuer = sendsIssuer
            self.advertisedChallengeMethods = advertisedChallengeMethods
            self.codeLifetime = codeLifetime
        }
    }
}

extension MockServerState {
    /// One authorization code, as issued.
    struct IssuedCode {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var scopes: [String]
        var resources: [String]
        var nonce: String?
        var expiresAt: Duration
        var consumed = false
    }

    /// Counts a broken rule of the code grant.
    mutating func codeGrantViolation(_ rule: String, at time: Duration) {
        violations.append(Server.Violation(kind: .codeGrant(rule), time: time, pollNumber: 0, userCode: ""))
    }

    /// The authorization endpoint (RFC 6749 §4.1.1–4.1.2): checks the request and redirects at once.
    mutating func authorize(_ incoming: Incoming) -> Reply {
        guard let settings = configuration.codeGrant else { return WireWriter.plain(status: 404, "Not Found") }
        guard incoming.request.method == .get else {
            return WireWriter.plain(status: 405, "Method Not Allowed", headers: [HTTPHeader("Allow", "GET")])
        }
        let query = FormEncoding.decode(incoming.request.url.query ?? "")
        func value(_ name: String) -> String? { query.first { $0.0 == name }?.1 }
        // RFC 6749 §4.1.2.1: with an unknown client or a redirect URI that is not registered, the server must not
        // redirect: it tells the person.
        guard let clientID = value("client_id"), let client = configuration.clients.first(where: { $0.id == clientID })
        else { return WireWriter.plain(status: 400, "Unknown client.") }
        guard let redirectURI = value("redirect_uri"), Self.isRegistered(redirectURI, in: client.redirectURIs) else {
            codeGrantViolation("the redirect URI is not one registered for the client", at: incoming.time)
            return WireWriter.plain(status: 400, "The redirect URI is not registered.")
        }
        let state = value("state")
        func redirect(_ parameters: [(String, String)]) -> Reply {
            var pairs = parameters
            if let state { pairs.append(("state", state)) }
            if settings.sendsIssuer { pairs.append(("iss", layout.issuer)) }
            let separator = redirectURI.contains("?") ? "&" : "?"
            let response = HTTPResponse(
                status: 302, headers: [HTTPHeader("Location", redirectURI + separator + FormEncoding.encode(pairs))]
            )
            return Reply(response: .respond(response), answer: .httpError(status: 302))
        }
        func refuse(_ rule: String) -> Reply {
            codeGrantViolation(rule, at: incoming.time)
            return redirect([("error", "invalid_request"), ("error_description", rule)])
        }
        guard value("response_type") == "code" else { return redirect([("error", "unsupported_response_type")]) }
        guard state?.isEmpty == false else { return refuse("the request carries no state") }
        guard let challenge = value("code_challenge"), !challenge.isEmpty else {
            return refuse("the request carries no PKCE code_challenge")
        }
        guard value("code_challenge_method") == PKCE.method else {
            return refuse("the request's code_challenge_method is not S256")
        }
        guard settings.approves else { return redirect([("error", "access_denied")]) }
        let code = generator.token()
        authorizationCodes[code] = IssuedCode(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge,
            scopes: value("scope")?.split(separator: " ").map(String.init) ?? [],
            resources: query.filter { $0.0 == "resource" }.map(\.1), nonce: value("nonce"),
            expiresAt: incoming.time + .seconds(settings.codeLifetime)
        )
        return redirect([("code", code)])
    }

    /// Whether `uri` is registered: exactly, or a loopback URI registered without regard to its port.
    static func isRegistered(_ uri: String, in registered: [String]) -> Bool {
        if registered.contains(uri) { return true }
        guard let url = URL(string: uri), url.scheme == "http", let host = url.host,
            ["127.0.0.1", "::1", "[::1]"].contains(host)
        else { return false }
        return registered.contains { candidate in
            guard let other = URL(string: candidate) else { return false }
            return other.scheme == "http" && other.host == host && other.path == url.path && url.query == nil
        }
    }

    /// The token endpoint's code exchange (RFC 6749 §4.1.3, RFC 7636 §4.6).
    mutating func redeem(_ incoming: Incoming, _ writer: WireWriter) throws(ReplyError) -> Reply {
        let clientID = try authenticateClient(incoming, writer)
        let dpopKey = try proofKey(incoming, writer, required: requiresDPoP(client: clientID), boundTo: nil)
        guard let code = incoming.value("code"), var issued = authorizationCodes[code], issued.clientID == clientID
        else { return writer.oauthError(.invalidGrant, "The code is unknown.") }
        func refuse(_ rule: String) -> Reply {
            codeGrantViolation(rule, at: incoming.time)
            return writer.oauthError(.invalidGrant, "Refused: \(rule).")
        }
        guard !issued.consumed else { return refuse("the code was redeemed a second time") }
        guard incoming.time < issued.expiresAt else { return writer.oauthError(.invalidGrant, "The code expired.") }
        guard incoming.value("redirect_uri") == issued.redirectURI else {
            return refuse("the redirect_uri differs from the authorization request's")
        }
        guard let verifier = incoming.value("code_verifier"),
            (try? SHA256Digest.base64URL(of: verifier)) == issued.challenge
        else { return refuse("the code_verifier does not fit the code_challenge") }
        issued.consumed = true
        authorizationCodes[code] = issued
        let grantID = makeGrant(
            clientID: clientID, scopes: issued.scopes, resources: issued.resources, dpopKey: dpopKey
        )
        return writer.success(
            tokenObject(
                grantID: grantID, at: incoming.time, newRefreshToken: grants[grantID]?.refreshToken,
                nonce: issued.nonce
            ))
    }
}
