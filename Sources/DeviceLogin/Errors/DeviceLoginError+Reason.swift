extension DeviceLoginError {
    /// The situation behind an error, with the facts a front end needs to word its own advice (see "Wording advice
    /// in your own terms" on ``DeviceLoginError``).
    ///
    /// Match the situation with ``kind`` and read the facts it comes with; or compare whole reasons:
    /// `error.reason == .missingEndpoint(.token)`. Like ``DeviceLoginError/Code``, a struct over a private enum:
    /// new kinds and facts may be added without breaking a caller's `switch`.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// Which situation a ``Reason`` describes.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private enum Value: String, Hashable, Sendable {
                case missingEndpoint, scopeRefused, notSignedIn, storeLocked, storeFromNewerVersion
                case pendingSignInBusy
                // Known refusals of the device flow: DeviceLoginError+KnownRefusals.swift.
                case conditionalAccessBlocked, deviceGrantNotAllowed
                // Provider presets: Providers/.
                case providerSetting
            }
            private let value: Value

            /// An endpoint the flow needs is in neither the server's metadata nor the configuration; see
            /// ``Reason/endpoint``. Advice: give the endpoint in the configuration.
            public static let missingEndpoint = Kind(value: .missingEndpoint)
            /// The server refused the scopes asked for (`invalid_scope`). Advice: ask for scopes it knows.
            public static let scopeRefused = Kind(value: .scopeRefused)
            /// Nobody is signed in to ``Reason/profile``, or the server ended its session. Advice: sign in.
            public static let notSignedIn = Kind(value: .notSignedIn)
            /// Another process has held the token file's lock for too long; see ``Reason/path``. Advice: wait for
            /// it, or stop it.
            public static let storeLocked = Kind(value: .storeLocked)
            /// The token file at ``Reason/path`` was written by a newer version, in format
            /// ``Reason/formatVersion``. Advice: upgrade, or move the file aside and sign in again.
            public static let storeFromNewerVersion = Kind(value: .storeFromNewerVersion)
            /// Another process is already polling the pending sign-in whose lock file is ``Reason/path``; its ID is
            /// ``Reason/processID`` when known (``FileTokenStore/withPendingPolling(profile:_:)``). Advice: wait for
            /// it, or stop it.
            public static let pendingSignInBusy = Kind(value: .pendingSignInBusy)
            /// Microsoft Entra ID's Conditional Access blocked the sign-in (`AADSTS53003` in the server's
            /// description). Advice: an administrator allows the device code flow for this app and user, or the
            /// person signs in on a device the policy accepts.
            public static let conditionalAccessBlocked = Kind(value: .conditionalAccessBlocked)
            /// The client may not use the device authorization grant (`unauthorized_client`). Advice: enable the
            /// Device Authorization Grant for the client at the provider.
            public static let deviceGrantNotAllowed = Kind(value: .deviceGrantNotAllowed)
            /// A provider preset's setting (``Reason/providerParameter``) is missing, not taken by the preset, or not
            /// a valid value (``ProviderPreset/resolve(_:)``). Advice: give that setting as the preset's
            /// documentation says.
            public static let providerSetting = Kind(value: .providerSetting)

            public var description: String { value.rawValue }
        }

        /// An endpoint of the authorization server, by its metadata name.
        public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
            /// Its name in the server's metadata (RFC 8414 §2, RFC 8628 §4): `token_endpoint`.
            public let metadataName: String

            /// The device authorization endpoint (`device_authorization_endpoint`, RFC 8628 §4).
            public static let deviceAuthorization = Endpoint(metadataName: "device_authorization_endpoint")
            /// The token endpoint (`token_endpoint`, RFC 8414 §2).
            public static let token = Endpoint(metadataName: "token_endpoint")

            public var description: String { metadataName }
        }

        /// Which situation this is.
        public let kind: Kind
        // The facts are `private(set) var` rather than `let` so that the compiler's memberwise initializer, which the
        // factories below use, gives each of them a nil default.
        /// The endpoint that is missing, for ``Kind/missingEndpoint``.
        public private(set) var endpoint: Endpoint?
        /// The profile that is not signed in, for ``Kind/notSignedIn``.
        public private(set) var profile: String?
        /// The file at fault, for ``Kind/storeLocked`` (the lock file) and ``Kind/storeFromNewerVersion``.
        public private(set) var path: String?
        /// The format version found in the file, for ``Kind/storeFromNewerVersion``.
        public private(set) var formatVersion: Int?
        /// The ID of the process at fault, for ``Kind/pendingSignInBusy``, when known.
        public private(set) var processID: Int?
        /// The name of the preset's setting at fault, for ``Kind/providerSetting`` (typed: `providerParameter`, in
        /// the providers' room, which this room does not reach).
        public private(set) var providerSettingName: String?

        /// `endpoint` is in neither the server's metadata nor the configuration.
        public static func missingEndpoint(_ endpoint: Endpoint) -> Reason {
            Reason(kind: .missingEndpoint, endpoint: endpoint)
        }

        /// The server refused the scopes asked for.
        public static let scopeRefused = Reason(kind: .scopeRefused)

        /// Conditional Access blocked the device flow (Microsoft Entra ID, `AADSTS53003`).
        public static let conditionalAccessBlocked = Reason(kind: .conditionalAccessBlocked)

        /// The client may not use the device authorization grant.
        public static let deviceGrantNotAllowed = Reason(kind: .deviceGrantNotAllowed)

        /// Nobody is signed in to `profile` (any more).
        public static func notSignedIn(profile: String) -> Reason {
            Reason(kind: .notSignedIn, profile: profile)
        }

        /// Another process holds the lock file at `path`.
        public static func storeLocked(path: String) -> Reason {
            Reason(kind: .storeLocked, path: path)
        }

        /// Another process (`processID`, when known) polls the pending sign-in whose lock file is at `path`.
        public static func pendingSignInBusy(path: String, processID: Int?) -> Reason {
            Reason(kind: .pendingSignInBusy, path: path, processID: processID)
        }

        /// The token file at `path` has format `version`, newer than this version reads.
        public static func storeFromNewerVersion(path: String, version: Int) -> Reason {
            Reason(kind: .storeFromNewerVersion, path: path, formatVersion: version)
        }

        /// The kind and its facts: `missingEndpoint(token_endpoint)`, `notSignedIn(profile: work)`.
        public var description: String {
            var facts: [String] = []
            if let endpoint { facts.append(endpoint.metadataName) }
            if let profile { facts.append("profile: \(profile)") }
            if let path { facts.append("path: \(path)") }
            if let formatVersion { facts.append("version: \(formatVersion)") }
            if let processID { facts.append("pid: \(processID)") }
            if let providerSettingName { facts.append("setting: \(providerSettingName)") }
            return facts.isEmpty ? kind.description : "\(kind)(\(facts.joined(separator: ", ")))"
        }
    }
}
