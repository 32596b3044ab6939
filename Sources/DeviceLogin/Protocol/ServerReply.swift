#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an OAuth endpoint answered, classified once for every caller.
///
/// Reads JSON and form-encoded bodies alike (GitHub answers form-encoded unless asked for JSON), and treats an
/// `error` member as an OAuth error whatever the HTTP status (GitHub sends errors with 200).
public enum ServerReply: Sendable, Hashable {
    /// A 2xx response whose body is an object without `error`.
    case success(JSONObject)
    /// An OAuth error response (RFC 6749 §5.2), with any status.
    case oauthError(OAuthError)
    /// A response that is neither: a 5xx or 429 page, a proxy's HTML, an empty 404.
    case httpError(status: Int, retryAfterSeconds: Int?, bodyExcerpt: String)
    /// A 2xx response whose body could not be read as an object.
    case malformed(status: Int, reason: String, bodyExcerpt: String)

    /// Classifies a response.
    public init(_ response: HTTPResponse) {
        let excerpt = String(decoding: response.body.prefix(OAuthError.maximumBodyCopy), as: UTF8.self)
        let object = Self.parseObject(response)
        if let object, let error = OAuthError(jsonObject: object, httpStatus: response.status, body: response.body) {
            self = .oauthError(error)
        } else if (200..<300).contains(response.status) {
            if let object {
                self = .success(object)
            } else {
                let reason = response.body.isEmpty ? "the body is empty" : "the body is not a JSON object"
                self = .malformed(status: response.status, reason: reason, bodyExcerpt: excerpt)
            }
        } else {
            self = .httpError(
                status: response.status, retryAfterSeconds: response.retryAfterSeconds, bodyExcerpt: excerpt
            )
        }
    }

    /// Parses the body as a JSON object, or as form fields when the media type says so or the body looks like it.
    static func parseObject(_ response: HTTPResponse) -> JSONObject? {
        let body = response.body
        guard !body.isEmpty else { return nil }
        let media = response.mediaType ?? ""
        if media == "application/x-www-form-urlencoded" {
            return formObject(body)
        }
        if let object = try? JSONValue.decodeObject(from: body) { return object }
        // A body that is not JSON but reads like `a=b&c=d`, sent with a text media type (GitHub's default).
        if media.isEmpty || media.hasPrefix("text/plain") {
            return formObject(body)
        }
        return nil
    }

    private static func formObject(_ body: Data) -> JSONObject? {
        guard let text = String(data: body, encoding: .utf8), text.contains("="),
            !text.contains("<"), !text.contains("{")
        else { return nil }
        let object = FormEncoding.decodeObject(text.trimmed())
        return object.isEmpty ? nil : object
    }
}
