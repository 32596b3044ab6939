import DeviceLogin

/// Lines of a curl config file (`curl -K FILE`, `curl -K -` for stdin), written so that curl reads back exactly
/// the value given and nothing else.
///
/// curl's rules (the `--config` entry of curl(1)): one option per line, `name = value`; a value with whitespace, or
/// one starting with `:` or `=`, is given in double quotes, inside which `\\`, `\"`, `\t`, `\n`, `\r` and `\v`
/// are escapes and a backslash before any other character is dropped. Every value here is quoted, with `\` and `"`
/// escaped, so a quote in it cannot end it and start another option. Control characters are refused instead of
/// escaped: curl would turn `\n` back into a newline and send it in the header.
enum CurlConfig {
    /// The config that makes curl send `Authorization: Bearer <token>`: one line, ending in a newline.
    /// - Throws: ``DeviceLoginError`` when the token is not printable ASCII (``BearerToken/check(_:for:)``).
    static func authorization(bearer token: String) throws -> String {
        try authorization(RequestAuthorization(accessToken: token, scheme: "Bearer"))
    }

    /// The config that makes curl send `authorization`'s headers: `Authorization: <scheme> <token>`, and for a
    /// DPoP-bound token `DPoP: <proof>` (RFC 9449 §7.1); one line each, each ending in a newline.
    /// - Throws: ``DeviceLoginError`` when the token or the proof is not printable ASCII (``BearerToken/check(_:for:)``).
    static func authorization(_ authorization: RequestAuthorization) throws -> String {
        try BearerToken.check(authorization.accessToken, for: "a curl config")
        var config = "header = " + escaped("Authorization: \(authorization.scheme) " + authorization.accessToken) + "\n"
        if let proof = authorization.proof {
            try BearerToken.check(proof, for: "a curl config")
            config += "header = " + escaped("DPoP: " + proof) + "\n"
        }
        return config
    }

    /// `value` in double quotes with `\` and `"` escaped; nil when it holds a control character (U+0000 to U+001F,
    /// U+007F), which a config line cannot carry as it is and which no header should hold.
    static func quoted(_ value: String) -> String? {
        let control = value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        return control ? nil : escaped(value)
    }

    /// `value` in double quotes with `\` and `"` escaped (control characters are the caller's to keep out).
    private static func escaped(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
