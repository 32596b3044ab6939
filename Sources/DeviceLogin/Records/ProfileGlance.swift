#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a store's read on the calling thread gives the CLI's fast lane (and the C library's `dl_token`): a
/// profile's settings and the access token it may answer with — a type of its own, which cannot be taken for the
/// profile's ``ProfileRecord``.
///
/// The lane answers from the access token alone. Some stores give it no more than that without waiting: a
/// profile whose tokens rest in the Secret Service has only a copy of its access token in the kernel keyring (no
/// refresh or ID token) for the lane. Such a glance has no ``record``; the full path, which must refresh, sign out
/// or answer with the ID token, reads the whole record itself. Only a store that read the whole record puts it
/// in ``record``, so a partial one cannot reach the full path as the profile's record.
package struct ProfileGlance: Sendable {
    /// The access token as the lane uses it: its value, its type and when it expires.
    package struct AccessToken: Sendable, Equatable {
        /// The access token.
        package var value: String
        /// `token_type` as sent.
        package var tokenType: String
        /// When the token expires, or nil when the server did not say.
        package var expiresAt: Date?

        /// The access token of `tokens` (the main one).
        package init(of tokens: TokenSet) {
            value = tokens.accessToken
            tokenType = tokens.tokenType
            expiresAt = tokens.expiresAt
        }

        /// Whether it is a bearer token, by the rule of a token set's `isBearer`.
        package var isBearer: Bool { TokenSet.isBearer(tokenType) }

        /// The token when it stays valid until after `date`, by the rule of ``TokenSet/accessToken(validAfter:)``.
        package func value(validAfter date: Date) -> String? {
            TokenSet.isValid(until: expiresAt, after: date) ? value : nil
        }
    }

    /// The profile's settings, as its file holds them.
    package let profile: Profile
    /// The stored access token, or nil when none is at hand (signed out, or no copy for the lane).
    package let accessToken: AccessToken?
    /// The whole record, when the read was of all of it; nil when the store read only the access token.
    package let record: ProfileRecord?

    /// The glance of a record read whole.
    package init(whole record: ProfileRecord) {
        self.profile = record.profile
        self.accessToken = record.tokens.map(AccessToken.init(of:))
        self.record = record
    }

    /// The glance of a profile of which only the access token was read: `tokens`' other parts are left out.
    package init(profile: Profile, accessTokenOf tokens: TokenSet?) {
        self.profile = profile
        self.accessToken = tokens.map(AccessToken.init(of:))
        self.record = nil
    }
}
