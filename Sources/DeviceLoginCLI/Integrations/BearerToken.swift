import DeviceLogin

/// What a helper checks of an access token before it hands it on: every character is printable ASCII (a space
/// included), so no carrier can be broken by it — a newline or a quote cannot end a curl config line and start
/// another option, a NUL cannot cut an environment variable short, a control character cannot reach a terminal or
/// an HTTP header. (RFC 6750's `b64token` is narrower still; real tokens are JWTs or opaque strings of it.)
enum BearerToken {
    /// Whether `token` may be handed on: not empty, and only printable ASCII (U+0020 to U+007E).
    static func isSendable(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Throws when `token` may not be handed on (``isSendable(_:)``); the error names `carrier`, never the token.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse`` (exit 76).
    static func check(_ token: String, for carrier: String) throws {
        guard !isSendable(token) else { return }
        throw DeviceLoginError(
            .invalidResponse,
            "the server's access token is empty or holds a control or non-ASCII character, which \(carrier)"
                + " cannot carry safely; it was not passed on",
            hint: "ask the server's administrators: an access token is printable ASCII (RFC 6750)"
        )
    }
}
