#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a stored record says about its access token and the URLs it serves, read with ``JSONParser`` instead of
/// `JSONDecoder`: the CLI's fast lane answers `device-login token` and the credential helpers from it before
/// anything else starts (see ``FileTokenStore/glanceOnCallingThread(profile:)``).
///
/// It reads the fields by the stored form's own keys (the `CodingKeys` of ``ProfileRecord``, ``Profile`` and
/// ``TokenSet``) and checks what the decoder checks of them; a record it cannot read — a field missing or of
/// another type, a time outside ``TokenSet/storedTimes``, a newer format version, another profile's name — is nil,
/// and its reader asks the full decoder, which reports it. It reads only these fields: a record that is broken
/// elsewhere (its endpoints, say) still gives its access token here, and every command that reads it whole reports
/// it. Where both read a record they agree on every field, and it reads every record the decoder reads; the
/// `stored-record` fuzz target checks both.
package struct RecordGlance: Sendable, Equatable {
    /// The profile's name.
    package var name: String
    /// The client authentication the profile is saved with, and its stored secret.
    package var clientAuthentication: ClientAuthentication.Method
    package var hasClientSecret: Bool
    /// The profile's user name for the credential helpers (``Profile/username``).
    package var username: String?
    /// The URL prefixes the profile serves (``Profile/bindings``).
    package var bindings: [URLBinding]
    /// The main access token, its type and its expiry, when the record holds tokens.
    package var accessToken: String?
    package var tokenType: String?
    package var expiresAt: Date?
    /// Where the tokens rest (``Profile/tokenStore``): when not the file, the token fields above come from that
    /// store (``FileTokenStore/glanceOnCallingThread(profile:)``).
    package var tokenStore: TokenStoreKind

    /// Reads `bytes`, a stored record of the profile `name`; nil when the full decoder must read it.
    package init?(_ bytes: [UInt8], profile name: String) {
        // ProfileRecord's keys are its property names (synthesized Codable).
        guard case .object(let record)? = try? JSONParser.parse(bytes),
            case .number(let version)? = record["version"], version == version.rounded(),
            version <= Double(ProfileRecord.currentVersion),
            case .object(let profile)? = record["profile"],
            case .string(let storedName)? = profile[Profile.CodingKeys.name.rawValue], storedName == name
        else { return nil }
        self.name = storedName
        switch profile[Profile.CodingKeys.tokenStore.rawValue] {
        case nil, .null?: tokenStore = .file
        case .string(let kind)?:
            guard let known = TokenStoreKind(rawValue: kind) else { return nil }
            tokenStore = known
        default: return nil
        }
        switch profile[Profile.CodingKeys.clientAuthentication.rawValue] {
        case nil, .null?: clientAuthentication = .none
        case .string(let method)?:
            guard let known = ClientAuthentication.Method(rawValue: method) else { return nil }
            clientAuthentication = known
        default: return nil
        }
        switch profile[Profile.CodingKeys.clientSecret.rawValue] {
        case nil, .null?: hasClientSecret = false
        case .string?: hasClientSecret = true
        default: return nil
        }
        switch profile[Profile.CodingKeys.username.rawValue] {
        case nil, .null?: username = nil
        case .string(let text)? where (try? Profile.validate(username: text)) != nil: username = text
        default: return nil
        }
        bindings = []
        switch profile[Profile.CodingKeys.bindings.rawValue] {
        case nil, .null?: break
        case .array(let list)?:
            for entry in list {
                guard case .string(let text) = entry, let binding = try? URLBinding(text) else { return nil }
                bindings.append(binding)
            }
        default: return nil
        }
        switch record["tokens"] {
        case nil, .null?:
            accessToken = nil
            tokenType = nil
            expiresAt = nil
        case .object(let tokens)?:
            typealias Key = TokenSet.ResourceToken.CodingKeys
            guard case .string(let token)? = tokens[Key.accessToken.rawValue],
                case .string(let type)? = tokens[Key.tokenType.rawValue],
                case .number(let issuedAt)? = tokens[Key.issuedAt.rawValue], TokenSet.storedTimes.contains(issuedAt)
            else { return nil }
            accessToken = token
            tokenType = type
            switch tokens[Key.expiresAt.rawValue] {
            case nil, .null?: expiresAt = nil
            case .number(let seconds)? where TokenSet.storedTimes.contains(seconds):
                expiresAt = Date(unixSeconds: seconds)
            default: return nil
            }
        default: return nil
        }
    }

    /// The access token when it stays valid until after `date` (as ``TokenSet/accessToken(validAfter:)``).
    package func accessToken(validAfter date: Date) -> String? {
        guard let accessToken else { return nil }
        return TokenSet.isValid(until: expiresAt, after: date) ? accessToken : nil
    }

    /// Whether the profile can make its client configuration without a secret given now, as
    /// ``Profile/clientConfiguration(secret:)`` can.
    package var hasClientConfiguration: Bool {
        ClientAuthentication(clientAuthentication, secret: hasClientSecret ? "" : nil) != nil
    }

    /// The user name the credential helpers answer with (as ``Profile/effectiveUsername``).
    package var effectiveUsername: String { username ?? Profile.defaultUsername }

    /// How well the profile serves `url` (as ``Profile/matchLength(_:)``).
    package func matchLength(_ url: URLBinding) -> Int? {
        bindings.compactMap { $0.matchLength(url) }.max()
    }
}
