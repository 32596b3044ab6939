#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A sign-in waiting for the person's approval, saved beside its profile so that another process can keep polling
/// it: a detached sign-in (`device-login login --detach`, then `--resume`).
///
/// It holds what the flow needs to continue exactly as the process that started it would have: the device
/// authorization as received (the device code is in it: never print it), where polling stood
/// (``PollingProgress``: the interval in force, the failures in a row, the last poll and the earliest next one), the
/// profile the tokens are to be saved as, the extra headers of every request, and the DPoP key the authorization
/// was requested with (draft-parecki-oauth-dpop-device-flow binds the whole transaction to it). The client secret is
/// in it only when the profile stores it (``Profile/clientSecret``); otherwise the resuming process must be given it
/// again.
///
/// ``FileTokenStore`` keeps it in `<profile>.pending` (mode `0600`, written atomically under the profile's lock);
/// see ``FileTokenStore/savePending(_:)``.
///
/// ```swift
/// let authorization = try await flow.requestAuthorization()
/// try await store.savePending(try PendingAuthorization(profile: profile, authorization: authorization))
/// // later, in another process:
/// if let pending = try await store.loadPending(profile: "work"), !pending.isExpired(at: SystemTime.now()) {
///     let token = try await flow.pollForToken(flow.resuming(pending.authorization, progress: pending.progress))
/// }
/// ```
public struct PendingAuthorization: Sendable, Hashable {
    /// The format version this library writes: 1.
    public static let currentVersion = 1
    /// The longest interval a saved progress may hold: one day. A file with a longer one is refused as corrupt.
    public static let maximumInterval = 86_400

    /// The format version of the record.
    public var version: Int
    /// The profile the tokens are to be saved as, with the settings the sign-in was started with.
    public var profile: Profile
    /// The device authorization as received (its ``DeviceAuthorization/receivedAt`` and issuer included).
    public var authorization: DeviceAuthorization
    /// Where polling stands.
    public var progress: PollingProgress
    /// Extra headers for every request to the server (``ClientConfiguration/additionalHeaders``).
    public var additionalHeaders: [HTTPHeader]
    /// The DPoP key the authorization was requested with, as its private JWK (RFC 7518 §6.2.2); nil without DPoP.
    /// As secret as a refresh token.
    public var dpopPrivateKey: JSONObject?
    /// The PEM file of CA certificates the sign-in trusted instead of the system's (``TransportOptions/caFile``).
    public var caFile: String?
    /// The store the sign-in was started with (`login --detach --store`), as its `--store` word
    /// (``TokenStoreRequest/word``); nil when none was given. `--resume` saves the tokens there.
    public var storeRequest: String?

    /// Creates a record of a sign-in that has just been authorized, or whose polling stands at `progress`.
    /// - Parameters:
    ///   - profile: The profile to save the tokens as.
    ///   - authorization: The authorization from ``DeviceFlow/requestAuthorization()``.
    ///   - progress: Where polling stands; nil for an authorization not polled yet (``PollingProgress/init(_:)``).
    ///   - additionalHeaders: Extra headers for every request.
    ///   - dpopKey: The DPoP key the authorization was requested with, if any.
    ///   - caFile: The CA file the sign-in trusted, if any.
    ///
    /// Only what the prompt would show is kept (``VerificationHostCheck/shownVerificationURI``, the one verdict): an
    /// authorization whose `verification_uri` the prompt refuses (`javascript:`, escapes, a host no DNS name can be)
    /// is not kept at all, since every later reader (`status`, `--resume`, another program) would show it; a
    /// `verification_uri_complete` that is not a plain `http(s)` link is dropped (the prompt shows neither it nor a
    /// QR code of it).
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse`` when the
    ///   `verification_uri` is refused; ``DeviceLoginError/Code/storage`` when the DPoP key cannot be written out.
    public init(
        profile: Profile, authorization: DeviceAuthorization, progress: PollingProgress? = nil,
        additionalHeaders: [HTTPHeader] = [], dpopKey: ECP256PrivateKey? = nil, caFile: String? = nil
    ) throws {
        if let refusal = Self.addressRefusal(authorization) {
            throw DeviceLoginError(
                .invalidResponse,
                "the server's sign-in address is refused (\(refusal)), so the sign-in is not kept for later",
                hint: "the server must send a plain https verification_uri; ask its operators")
        }
        var plain = authorization
        if let complete = plain.response.verificationURIComplete, SafeURI(complete) == nil {
            plain.response.verificationURIComplete = nil
        }
        plain.progress = nil
        plain.receivedAtElapsed = .zero
        self.version = Self.currentVersion
        self.profile = profile
        self.authorization = plain
        self.progress = progress ?? PollingProgress(authorization)
        self.additionalHeaders = additionalHeaders
        do {
            self.dpopPrivateKey = try dpopKey?.privateJSONWebKey()
        } catch {
            throw DeviceLoginError(.storage, "the DPoP key of the pending sign-in cannot be written: \(error.message)")
        }
        self.caFile = caFile
    }

    /// Why `authorization`'s `verification_uri` may be neither shown nor kept, by the prompt's verdict
    /// (``VerificationHostCheck/shownVerificationURI``); nil when it may.
    static func addressRefusal(_ authorization: DeviceAuthorization) -> String? {
        let check = authorization.hostCheck
        guard check.shownVerificationURI == nil else { return nil }
        return check.refusal ?? "its verification_uri is not a plain http(s) link"
    }

    /// The profile's name (the store's key).
    public var name: String { profile.name }
    /// When the device code expires: no poll after it.
    public var expiresAt: Date { authorization.expiresAt }

    /// Whether the device code has expired at `now`.
    public func isExpired(at now: Date) -> Bool { now >= expiresAt }

    /// Whole seconds left before the device code expires at `now`; 0 once it has.
    public func secondsLeft(at now: Date) -> Int {
        let seconds = expiresAt.timeIntervalSince(now)
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, Double(DeviceAuthorizationResponse.maximumLifetime)).rounded(.down))
    }

    /// The DPoP key (``dpopPrivateKey``), read back.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when it is not a P-256 private key
    ///   (or libcrypto cannot read it).
    public func dpopKey() throws -> ECP256PrivateKey? {
        guard let dpopPrivateKey else { return nil }
        do {
            return try ECP256PrivateKey(jsonObject: dpopPrivateKey)
        } catch {
            throw DeviceLoginError(
                .storage, "the DPoP key of the pending sign-in cannot be used: \(error.message)",
                hint: "start the sign-in again")
        }
    }
}

extension PendingAuthorization {
    /// Checks, before anything is sent, that the pending sign-in may be polled where its file says: every endpoint
    /// passes the HTTPS policy (``EndpointPolicy``) as one given on the command line does, and belongs to its
    /// profile's server. A file is only as trustworthy as whoever last wrote it; a changed token endpoint would
    /// receive the device code and the client secret.
    ///
    /// Its profile's server is its issuer, which the authorization recorded when the code was requested
    /// (``DeviceAuthorization/issuer``), and, when the profile is saved already with that issuer (`savedProfile`),
    /// the hosts that profile talks to: every endpoint of the pending sign-in must be on the origin (scheme, host,
    /// port) of one of the saved profile's endpoints or its issuer.
    /// - Parameter savedProfile: The profile saved under the same name (`NAME.json`), if any.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/insecureEndpoint`` when an endpoint fails the
    ///   HTTPS policy, or ``DeviceLoginError/Code/configuration`` when the endpoints are not its server's.
    public func checkServer(savedProfile: Profile?) throws {
        let endpoints = profile.endpoints
        try endpoints.check(allowInsecureHTTP: profile.allowInsecureHTTP)
        let server = endpoints.recordedServer
        // As ``DeviceFlow`` recorded it when the code was requested from these endpoints.
        if let recorded = authorization.issuer, recorded != server {
            throw DeviceLoginError(
                .configuration,
                "its endpoints are of \(Self.origin(text: server)), but it was started with "
                    + Self.origin(text: recorded))
        }
        guard let savedProfile, let issuer = savedProfile.issuer, issuer == profile.issuer else { return }
        let saved = savedProfile.endpoints
        let known = Set(
            ([saved.token]
                + [
                    saved.deviceAuthorization, saved.authorization, saved.revocation, saved.userinfo, saved.jwks,
                    URL(string: issuer),
                ]
                .compactMap { $0 }).map(Self.origin))
        let named: [(String, URL?)] = [
            ("device authorization endpoint", endpoints.deviceAuthorization), ("token endpoint", endpoints.token),
            ("revocation endpoint", endpoints.revocation), ("userinfo endpoint", endpoints.userinfo),
            ("jwks_uri", endpoints.jwks),
        ]
        for case (let name, let url?) in named where !known.contains(Self.origin(url)) {
            throw DeviceLoginError(
                .configuration,
                "its \(name) is on \(Self.origin(url)), none of the hosts of the saved profile "
                    + "'\(savedProfile.name)' (\(Self.origin(text: issuer)))")
        }
    }

    /// The origin of `url` (RFC 6454): the scheme and host lowercased, and the port, the scheme's default when none
    /// is written.
    static func origin(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }

    /// The origin of a URL given as text, for a message; `another server` for text that is no URL.
    private static func origin(text: String) -> String {
        URL(string: text).map(origin) ?? "another server"
    }
}

extension PendingAuthorization: CustomStringConvertible {
    /// A summary without the device code, the key or any secret.
    public var description: String {
        "PendingAuthorization(profile: \(profile.name), userCode: \(authorization.userCode), "
            + "expiresAt: \(expiresAt.timeIntervalSince1970), interval: \(progress.interval))"
    }
}

extension PendingAuthorization: Codable {
    enum CodingKeys: String, CodingKey {
        case version, profile, response, issuer
        case receivedAt = "received_at"
        case expiresAt = "expires_at"
        case interval
        case consecutiveFailures = "consecutive_failures"
        case attempts
        case lastPollAt = "last_poll_at"
        case notBefore = "not_before"
        case headers
        case dpopKey = "dpop_key"
        case caFile = "ca_file"
        case storeRequest = "store_request"
    }

    /// Reads a record in the stored form; every number and time is bounded, the response checked as on the wire.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        profile = try container.decode(Profile.self, forKey: .profile)
        let response = try DeviceAuthorizationResponse(
            jsonObject: try container.decode(JSONObject.self, forKey: .response))
        authorization = DeviceAuthorization(
            response: response, receivedAt: try container.decodeStoredTime(forKey: .receivedAt),
            issuer: try container.decodeIfPresent(String.self, forKey: .issuer)
        )
        // The file is not trusted: an address this library would not have kept is refused, not shown later.
        if let refusal = Self.addressRefusal(authorization) {
            throw DeviceLoginError(.storage, "the sign-in address is refused: \(refusal)")
        }
        if let complete = response.verificationURIComplete, SafeURI(complete) == nil {
            throw DeviceLoginError(
                .storage, "the sign-in address is refused: its verification_uri_complete is not a plain http(s) link")
        }
        let interval = try container.decode(Int.self, forKey: .interval)
        let failures = try container.decode(Int.self, forKey: .consecutiveFailures)
        let attempts = try container.decode(Int.self, forKey: .attempts)
        guard (1...Self.maximumInterval).contains(interval), (0...Int(Int32.max)).contains(failures),
            (0...Int(Int32.max)).contains(attempts)
        else {
            throw DeviceLoginError(.storage, "the interval, failures or attempts are out of range")
        }
        progress = PollingProgress(
            interval: .seconds(interval), consecutiveFailures: failures, attempts: attempts,
            lastPollAt: try container.decodeStoredTimeIfPresent(forKey: .lastPollAt),
            notBefore: try container.decodeStoredTime(forKey: .notBefore)
        )
        let headers = try container.decodeIfPresent([[String]].self, forKey: .headers) ?? []
        additionalHeaders = try headers.map { pair in
            guard pair.count == 2 else { throw DeviceLoginError(.storage, "a header is not a name and a value") }
            return HTTPHeader(pair[0], pair[1])
        }
        dpopPrivateKey = try container.decodeIfPresent(JSONObject.self, forKey: .dpopKey)
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
        storeRequest = try container.decodeIfPresent(String.self, forKey: .storeRequest)
        if let word = storeRequest, TokenStoreRequest(word) == nil {
            throw DeviceLoginError(.storage, "the store of the pending sign-in is not one this version knows")
        }
    }

    /// Writes the record: times as Unix seconds, the response as its wire object, the interval in whole seconds.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let path = container.codingPath
        try container.encode(version, forKey: .version)
        try container.encode(profile, forKey: .profile)
        try container.encode(authorization.response.jsonObject, forKey: .response)
        try container.encodeIfPresent(authorization.issuer, forKey: .issuer)
        try container.encode(
            try TokenSet.storedSeconds(authorization.receivedAt, field: path, key: CodingKeys.receivedAt),
            forKey: .receivedAt)
        try container.encode(
            try TokenSet.storedSeconds(expiresAt, field: path, key: CodingKeys.expiresAt), forKey: .expiresAt)
        let seconds = progress.interval.components.seconds + (progress.interval.components.attoseconds > 0 ? 1 : 0)
        try container.encode(Int(clamping: min(max(seconds, 1), Int64(Self.maximumInterval))), forKey: .interval)
        try container.encode(progress.consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(progress.attempts, forKey: .attempts)
        try container.encodeIfPresent(
            try progress.lastPollAt.map { try TokenSet.storedSeconds($0, field: path, key: CodingKeys.lastPollAt) },
            forKey: .lastPollAt)
        try container.encode(
            try TokenSet.storedSeconds(progress.notBefore, field: path, key: CodingKeys.notBefore), forKey: .notBefore)
        if !additionalHeaders.isEmpty {
            try container.encode(additionalHeaders.map { [$0.name, $0.value] }, forKey: .headers)
        }
        try container.encodeIfPresent(dpopPrivateKey, forKey: .dpopKey)
        try container.encodeIfPresent(caFile, forKey: .caFile)
        try container.encodeIfPresent(storeRequest, forKey: .storeRequest)
    }
}
