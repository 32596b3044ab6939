#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a ``FlowEventEncoder`` needs besides the event itself: when it happened, and for the last event of a
/// sign-in the facts only the caller knows (the profile it was saved as, the token's expiry and scopes, the exit
/// code). Never a token.
public struct FlowEventContext: Sendable, Hashable {
    /// When the event happened (from the caller's injected `now`): the event's `at`.
    public var at: Date
    /// For `succeeded`: the profile the sign-in was saved as, or nil when it was not saved.
    public var profile: String?
    /// For `succeeded`: when the access token expires, when the server said.
    public var tokenExpiresAt: Date?
    /// For `succeeded`: the scopes granted (or asked for, when the server did not say).
    public var scopes: [String]
    /// For `failed`: the exit code a program will see, when there is one.
    public var exitCode: Int?

    /// Creates a context.
    /// - Parameters:
    ///   - at: When the event happened.
    ///   - profile: For `succeeded`: the profile saved, or nil.
    ///   - tokenExpiresAt: For `succeeded`: the access token's expiry, or nil.
    ///   - scopes: For `succeeded`: the scopes granted.
    ///   - exitCode: For `failed`: the exit code, or nil.
    public init(
        at: Date, profile: String? = nil, tokenExpiresAt: Date? = nil, scopes: [String] = [], exitCode: Int? = nil
    ) {
        self.at = at
        self.profile = profile
        self.tokenExpiresAt = tokenExpiresAt
        self.scopes = scopes
        self.exitCode = exitCode
    }
}
