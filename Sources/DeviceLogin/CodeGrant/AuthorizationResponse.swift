#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization response (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207's `iss`), read from the redirect the browser
/// followed to the loopback listener, or from what the person pasted: the whole redirect URL, its query, or the code
/// alone.
///
/// Every check is made here, once, for both ways in: the parameters come from the query (a fragment is never read:
/// this client asks for the query response mode), none may repeat (RFC 6749 §3.1), `state` must be this request's,
/// and `iss` must be the issuer's when the server sent one or advertises that it does
/// (`authorization_response_iss_parameter_supported`, RFC 9207 §2.4). An `error` answer becomes the matching
/// ``DeviceLoginError`` (`access_denied` is ``DeviceLoginError/Code/accessDenied``), its text sanitised.
public struct AuthorizationResponse: Sendable, Hashable {
    /// `code`: the authorization code, redeemed once at the token endpoint.
    public var code: String
    /// `state` as it came back; nil only for a code pasted alone.
    public var state: String?
    /// `iss` (RFC 9207), when sent.
    public var issuer: String?

    /// What an answer is checked against.
    public struct Expectation: Sendable, Hashable {
        /// The `state` the request carried.
        public var state: String
        /// The issuer identifier `iss` must equal; nil when unknown (then a sent `iss` cannot be checked and is
        /// refused only if it is malformed).
        public var issuer: String?
        /// Whether the server advertises RFC 9207 (`authorization_response_iss_parameter_supported`): then `iss`
        /// must be present.
        public var issuerRequired: Bool
        /// The redirect URI the request named: a pasted URL must lead there (scheme, host, port and path).
        public var redirectURI: String

        /// Creates an expectation.
        public init(state: String, issuer: String?, issuerRequired: Bool = false, redirectURI: String) {
            self.state = state
            self.issuer = issuer
            self.issuerRequired = issuerRequired
            self.redirectURI = redirectURI
        }
    }

    /// The longest text read from a paste or a redirect's query, in bytes.
    public static let maximumLength = 8192
    /// The longest code accepted, in bytes.
    public static let maximumCodeLength = 2048

    /// Reads what the person pasted: the redirect URL, its query, or the code alone (whose `state` cannot be checked;
    /// PKCE still binds it to this client's verifier).
    /// - Throws: ``DeviceLoginError``: ``DeviceLoginError/Code/accessDenied`` for `access_denied`,
    ///   ``DeviceLoginError/Code/oauth`` for another `error`, ``DeviceLoginError/Code/invalidResponse`` for a
    ///   wrong `state` or `iss`, a repeated parameter, another address, or text that is no code.
    public static func parse(pasted text: String, expecting expected: Expectation) throws -> AuthorizationResponse {
        guard text.utf8.count <= maximumLength else { throw refusal("the pasted text is longer than 8192 bytes") }
        let trimmed = text.trimmed()
        if let query = try query(ofPasted: trimmed, expected: expected) {
            return try parse(query: query, expecting: expected)
        }
        guard isCode(trimmed) else {
            throw refusal("the pasted text is neither the address the browser showed nor a code")
        }
        return AuthorizationResponse(code: trimmed, state: nil, issuer: nil)
    }

    /// Reads the query of a redirect (without `?`), as the loopback listener received it.
    /// - Throws: As ``parse(pasted:expecting:)``.
    public static func parse(query: Substring, expecting expected: Expectation) throws -> AuthorizationResponse {
        guard query.utf8.count <= maximumLength else { throw refusal("the redirect is longer than 8192 bytes") }
        var fields: [String: String] = [:]
        for (name, value) in FormEncoding.decode(String(query)) {
            // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
            guard fields.updateValue(value, forKey: name) == nil else {
                throw refusal("the redirect carries \(Sanitizer.sanitize(name, maxLength: 40)) more than once")
            }
        }
        // RFC 6749 §10.12: the state binds the answer to this request; an answer for another request is refused
        // before anything else in it is believed, an error included.
        let state = fields["state"]
        if state != nil || fields["error"] == nil {
            guard let state, RandomText.equal(state, expected.state) else {
                throw refusal(
                    state == nil
                        ? "the redirect carries no state" : "the redirect's state is not this sign-in's",
                    hint: "start the sign-in again and finish it in the browser it opens"
                )
            }
        }
        try checkIssuer(fields["iss"], expected: expected)
        if let error = fields["error"] { throw failure(error, fields: fields) }
        guard let code = fields["code"], isCode(code) else {
            throw refusal(fields["code"] == nil ? "the redirect carries no code" : "the redirect's code is malformed")
        }
        return AuthorizationResponse(code: code, state: state, issuer: fields["iss"])
    }

    /// RFC 9207 §2.4: `iss` must equal the issuer; when the server advertises the parameter, it must be present.
    private static func checkIssuer(_ issuer: String?, expected: Expectation) throws {
        guard let issuer else {
            if expected.issuerRequired {
                throw refusal("the redirect carries no iss, which the server's metadata promises (RFC 9207)")
            }
            return
        }
        if let wanted = expected.issuer, issuer != wanted {
            throw refusal(
                "the redirect's iss \(Sanitizer.sanitize(issuer, maxLength: 120)) is not the issuer "
                    + Sanitizer.sanitize(wanted, maxLength: 120),
                hint: "another server answered: this is a mix-up attack or a misconfiguration (RFC 9207)"
            )
        }
    }

    /// The query of a pasted URL or query string; nil for text that is neither (a code alone).
    private static func query(ofPasted text: String, expected: Expectation) throws -> Substring? {
        var text = Substring(text)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        if text.hasPrefix("?") { return text.dropFirst() }
        if text.contains("://") {
            let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            guard sameEndpoint(String(parts[0]), expected.redirectURI) else {
                throw refusal(
                    "the pasted address is not this sign-in's redirect (\(Sanitizer.sanitize(expected.redirectURI)))"
                )
            }
            return parts.count > 1 ? parts[1] : ""
        }
        return text.contains("=") ? text : nil
    }

    /// Whether a pasted address names the redirect URI: same scheme, host and port (case-insensitive) and path.
    static func sameEndpoint(_ pasted: String, _ redirect: String) -> Bool {
        func parts(_ text: String) -> (String, String)? {
            guard let url = URL(string: text), let scheme = url.scheme, let host = url.host else { return nil }
            let port = url.port.map { ":\($0)" } ?? ""
            let path = url.path.isEmpty ? "/" : url.path
            return ("\(scheme)://\(host)\(port)".lowercased(), path)
        }
        guard let left = parts(pasted), let right = parts(redirect.split(separator: "?").first.map(String.init) ?? "")
        else { return false }
        return left == right
    }

    /// A code is 1–2048 visible ASCII characters (RFC 6749 Appendix A.11: VSCHAR, spaces left out).
    static func isCode(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumCodeLength && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The error an `error` answer is (RFC 6749 §4.1.2.1): its description sanitised.
    private static func failure(_ code: String, fields: [String: String]) -> DeviceLoginError {
        var object: JSONObject = ["error": .string(Sanitizer.sanitize(code, maxLength: 80))]
        if let description = fields["error_description"] {
            object["error_description"] = .string(Sanitizer.sanitize(description, maxLength: 300))
        }
        if let uri = fields["error_uri"].flatMap(Sanitizer.safeURI) { object["error_uri"] = .string(uri) }
        let error = OAuthError(jsonObject: object, httpStatus: 302, body: Data())!
        if error.code == .accessDenied {
            return DeviceLoginError(
                .accessDenied, "the sign-in was declined in the browser: \(error.summary)", oauthError: error
            )
        }
        return DeviceLoginError.server(error, while: "the authorization request")
    }

    private static func refusal(_ message: String, hint: String? = nil) -> DeviceLoginError {
        DeviceLoginError(.invalidResponse, message, hint: hint)
    }
}
