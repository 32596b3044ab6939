#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The verdict on one ID token: verified (its signature against the issuer's key and its claims), refused (it
/// failed a check and never will pass), or undetermined (it could not be checked now: the keys could not be
/// fetched, libcrypto is missing).
///
/// A ``TokenSet`` keeps the verdict of its ID token (``TokenSet/idTokenVerification``), so that showing who is signed
/// in needs no request. The verdict names the token by its SHA-256 (``tokenDigest``): a token changed after it was
/// judged — in the file, say — no longer matches (``isAbout(_:)``), and is judged again. Verified and refused
/// verdicts are kept for good; an undetermined one is tried again next time, except that one whose keys could not be
/// fetched (``keysUnavailableAt``) is reused for a short while (``isRecent(at:within:)``), so that a slow or
/// unreachable key set does not make every `status` wait again.
///
/// ```swift
/// let verdict = try await state.idTokenVerification()
/// if verdict?.isVerified == true { print(try await state.verifiedIDTokenClaims().subject) }
/// else { print("not verified:", verdict?.problem ?? "no ID token") }
/// ```
public struct IDTokenVerification: Sendable, Hashable {
    /// What came of the checks.
    public enum Outcome: String, Sendable, Hashable {
        /// The signature verifies with the issuer's key and every claim check passed.
        case verified
        /// A check failed: the token is not believed, and checking again will not change that.
        case refused
        /// The token could not be checked now; it may be later.
        case undetermined
    }

    /// What came of the checks.
    public var outcome: Outcome
    /// Why the token is not verified, in words (never the token); nil when verified.
    public var problem: String?
    /// The token's `alg`, when it was one this library verifies.
    public var algorithm: String?
    /// The `kid` of the key that verified it (or that it named).
    public var keyID: String?
    /// The token's SHA-256, base64url: which token this verdict is about. Nil only for an undetermined verdict when
    /// no digest could be computed.
    public var tokenDigest: String?
    /// When the checks ran, by the injected `now`.
    public var checkedAt: Date
    /// When the issuer's keys were last fetched for this token and could not be had (the `jwks_uri` slow,
    /// unreachable or broken), by the injected `now`; nil for every other verdict. Stored as `keys_unavailable_at`;
    /// a record written before it existed has none, and such a verdict is judged again as before.
    public var keysUnavailableAt: Date?

    /// Creates a verdict.
    public init(
        outcome: Outcome, problem: String? = nil, algorithm: String? = nil, keyID: String? = nil,
        tokenDigest: String?, checkedAt: Date, keysUnavailableAt: Date? = nil
    ) {
        self.outcome = outcome
        self.problem = problem
        self.algorithm = algorithm
        self.keyID = keyID
        self.tokenDigest = tokenDigest
        self.checkedAt = checkedAt
        self.keysUnavailableAt = keysUnavailableAt
    }

    /// Whether the token was verified.
    public var isVerified: Bool { outcome == .verified }

    /// Whether the verdict is worth keeping: verified or refused, and naming its token.
    public var isFinal: Bool { outcome != .undetermined && tokenDigest != nil }

    /// Whether this is a verdict of keys that could not be fetched (``keysUnavailableAt``) less than `interval` before
    /// `now`: worth reusing rather than fetching them again. A time in the future (a clock set back) is not recent.
    public func isRecent(at now: Date, within interval: Duration) -> Bool {
        guard outcome == .undetermined, let keysUnavailableAt else { return false }
        let elapsed = now.timeIntervalSince(keysUnavailableAt)
        return elapsed >= 0 && elapsed < Double(interval.components.seconds)
    }

    /// Whether this verdict is about `idToken` (its SHA-256 is ``tokenDigest``).
    ///
    /// Computing the digest loads libcrypto; without it, no verdict is about any token.
    public func isAbout(_ idToken: String) -> Bool {
        guard let tokenDigest, let digest = try? SHA256Digest.base64URL(of: idToken) else { return false }
        return digest == tokenDigest
    }
}

extension IDTokenVerification: Codable, StoredDecodable {
    enum CodingKeys: String, CodingKey {
        case outcome, problem
        case algorithm = "alg"
        case keyID = "kid"
        case tokenDigest = "sha256"
        case checkedAt = "checked_at"
        case keysUnavailableAt = "keys_unavailable_at"
    }

    /// Reads a verdict in the stored form (times as Unix seconds, like the rest of a token file): part of the one
    /// reader of a profile's file (``ProfileRecord/init(stored:)``).
    /// - Throws: ``DeviceLoginError`` naming the first field that cannot be read.
    package init(stored fields: JSONFields) throws {
        self.init(
            // An outcome a later version writes is not believed.
            outcome: Outcome(rawValue: try fields.string(CodingKeys.outcome.rawValue)) ?? .undetermined,
            problem: try fields.stringIfPresent(CodingKeys.problem.rawValue),
            algorithm: try fields.stringIfPresent(CodingKeys.algorithm.rawValue),
            keyID: try fields.stringIfPresent(CodingKeys.keyID.rawValue),
            tokenDigest: try fields.stringIfPresent(CodingKeys.tokenDigest.rawValue),
            checkedAt: try fields.storedTime(CodingKeys.checkedAt.rawValue),
            keysUnavailableAt: try fields.storedTimeIfPresent(CodingKeys.keysUnavailableAt.rawValue)
        )
    }

    /// Writes the verdict in the stored form.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome.rawValue, forKey: .outcome)
        try container.encodeIfPresent(problem, forKey: .problem)
        try container.encodeIfPresent(algorithm, forKey: .algorithm)
        try container.encodeIfPresent(keyID, forKey: .keyID)
        try container.encodeIfPresent(tokenDigest, forKey: .tokenDigest)
        try container.encode(
            try TokenSet.storedSeconds(checkedAt, field: container.codingPath, key: CodingKeys.checkedAt),
            forKey: .checkedAt
        )
        if let keysUnavailableAt {
            try container.encode(
                try TokenSet.storedSeconds(
                    keysUnavailableAt, field: container.codingPath, key: CodingKeys.keysUnavailableAt),
                forKey: .keysUnavailableAt
            )
        }
    }
}

extension IDTokenVerification: CustomStringConvertible {
    /// The outcome, algorithm, key and problem; never the token.
    public var description: String {
        "IDTokenVerification(\(outcome.rawValue), alg: \(algorithm ?? "none"), kid: \(keyID ?? "none")"
            + (problem.map { ", problem: \($0)" } ?? "") + ")"
    }
}
