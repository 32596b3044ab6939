import DeviceLogin

/// What the PAM helper tells the module: let the person in, keep them out, or say the server could not be asked
/// (`PAM_SUCCESS`, `PAM_AUTH_ERR`, `PAM_AUTHINFO_UNAVAIL`). The reason is for the system log: it names users and
/// claims, never a token or a code.
struct PAMDecision: Sendable, Equatable {
    /// The verdict, as the `decision` field of the helper's `pam_decision` line says it.
    enum Verdict: String, Sendable, Equatable {
        /// Let the person in: `PAM_SUCCESS`.
        case allow
        /// Keep them out: `PAM_AUTH_ERR`.
        case deny
        /// The server, its keys or the configuration could not be used: `PAM_AUTHINFO_UNAVAIL`.
        case unavailable
    }

    /// The verdict.
    var verdict: Verdict
    /// Why, for the system log: sanitised, never a token or a code.
    var reason: String
    /// What the person is told instead of the module's plain "The sign-in was refused.", when there is more to say
    /// that tells a stranger nothing (the deadline passed); nil for the plain words.
    var message: String? = nil

    /// A ``Verdict/deny`` decision with its reason.
    static func deny(_ reason: String) -> PAMDecision { PAMDecision(verdict: .deny, reason: reason) }

    /// The decision when the configuration's deadline passed before the approval.
    static func deadlinePassed(seconds: Int) -> PAMDecision {
        let words = "The sign-in was not approved within \(seconds) seconds."
        return PAMDecision(verdict: .deny, reason: "not approved within \(seconds) s (deadline)", message: words)
    }

    /// The longest claim value quoted in a reason.
    static let maximumQuotedLength = 64

    /// The decision on a verified ID token's `claims` for the PAM user `user`: allow when the configured claim
    /// equals the user exactly — or, with a mapping, maps to the user — (an `email` only when `email_verified` is
    /// true) and, when groups are required, the groups claim holds one of them. The caller has verified the token
    /// (signature, `iss`, `aud`, `exp`).
    static func decide(
        claims: IDTokenClaims, user: String, configuration: PAMConfiguration, map: PAMUserMap? = nil
    ) -> PAMDecision {
        let claimName = configuration.usernameClaim.rawValue
        let value: String?
        switch configuration.usernameClaim {
        case .preferredUsername: value = claims.preferredUsername
        case .subject: value = claims.subject
        case .email:
            guard claims.emailVerified == true else {
                return .deny("the ID token's email is not verified (email_verified is not true)")
            }
            value = claims.email
        }
        guard let value else { return .deny("the ID token has no \(claimName) claim") }
        if let map {
            guard map.allows(value, as: user) else {
                return .deny("the mapping gives the ID token's \(claimName) \(quoted(value)) no user \(quoted(user))")
            }
        } else {
            guard value == user else {
                return .deny("the ID token's \(claimName) \(quoted(value)) is not the user \(quoted(user))")
            }
        }
        if !configuration.allowedGroups.isEmpty {
            let groups = claims.additionalClaims[configuration.groupsClaim]?.stringListValue ?? []
            guard groups.contains(where: configuration.allowedGroups.contains) else {
                let allowed = configuration.allowedGroups.joined(separator: ", ")
                return .deny("the ID token's \(quoted(configuration.groupsClaim)) claim names none of: \(allowed)")
            }
        }
        let how = map == nil ? "is" : "maps to"
        return PAMDecision(verdict: .allow, reason: "the ID token's \(claimName) \(how) the user \(quoted(user))")
    }

    /// A value as a reason quotes it: sanitised, bounded, in quotes.
    static func quoted(_ value: String) -> String {
        "'" + Sanitizer.sanitize(value, maxLength: maximumQuotedLength) + "'"
    }
}
