import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request a DPoP proof is made for (RFC 9449 §4.2: `htm` and `htu`): `--url U [--method M]`, or under other
/// names (`exec --dpop-url U --dpop-method M`). Pure, so every rule is tested by a table.
struct RequestTarget: Sendable, Equatable {
    /// The longest URL accepted: 8 KiB.
    static let maximumURLBytes = DPoPProof.maximumRequestURLBytes
    /// The longest method accepted: 32 characters.
    static let maximumMethodLength = DPoPProof.maximumMethodLength

    /// The HTTP method, upper-cased: `GET` when none is given.
    var method: String
    /// The absolute http(s) URL.
    var url: URL

    /// The target the options give.
    /// - Parameters:
    ///   - options: The parsed options.
    ///   - urlOption: The name of the URL option (`url`).
    ///   - methodOption: The name of the method option (`method`).
    ///   - command: The command, for usage errors.
    /// - Returns: The target, or nil when neither option is given.
    /// - Throws: ``UsageError`` for a method without a URL, a URL that is not an absolute http(s) URL, or a method
    ///   that is not an HTTP method token (RFC 9110 §9.1).
    static func read(
        _ options: ParsedOptions, url urlOption: String = "url", method methodOption: String = "method",
        command: String
    ) throws -> RequestTarget? {
        guard let text = options.value(urlOption) else {
            if options.has(methodOption) {
                throw UsageError("--\(methodOption) needs --\(urlOption), the URL of the request", command: command)
            }
            return nil
        }
        guard let url = DPoPProof.requestURL(text) else {
            // The value is not repeated: a URL may hold a password or a token.
            throw UsageError("--\(urlOption) must be an absolute http(s) URL", command: command)
        }
        guard let method = DPoPProof.requestMethod(options.value(methodOption) ?? "GET") else {
            throw UsageError("--\(methodOption) must be an HTTP method such as GET or POST", command: command)
        }
        return RequestTarget(method: method, url: url)
    }
}
