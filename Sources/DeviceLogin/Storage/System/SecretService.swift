#if canImport(CSecretService)
import CSecretService
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few calls of the freedesktop Secret Service that ``SecretServiceTokenStore`` needs, through libsecret
/// (`CSecretService`), which the first call loads with `dlopen`: a process that never uses the store never loads
/// libsecret, GLib or D-Bus.
///
/// Every item belongs to one schema (`io.github.device-login.Tokens`) with four attributes, ``Attributes``. Nothing
/// here prompts but ``defaultCollection(unlock:)`` with `unlock`: a locked collection or item is reported as
/// ``Failure/Kind/locked``. Every call blocks on D-Bus: run it off the cooperative pool (``BlockingIO``).
struct SecretService: Sendable {
    /// libsecret's name for `dlopen`.
    static let libraryName = "libsecret-1.so.0"

    /// Why a call failed.
    struct Failure: Error, Sendable {
        enum Kind: Sendable, Equatable {
            /// No libsecret, or no session bus, or no service on it.
            case unavailable
            /// The default collection, or the item, is locked.
            case locked
            /// The service has no default collection.
            case noCollection
            /// The secret is larger than the caller reads.
            case tooLarge
            /// Anything else the service or D-Bus said.
            case failed
        }
        var kind: Kind
        /// GLib's or the loader's message, which names no secret.
        var message: String
    }

    /// An item's attributes: `application` is always `device-login`; a nil value matches any.
    struct Attributes: Sendable, Equatable {
        /// The application attribute of every item: `device-login`.
        static let application = "device-login"
        /// The profile's name.
        var profile: String?
        /// The folder of the profiles (``FileTokenStore/directory``): two folders never share an item.
        var home: String
        /// What the item holds: ``Kind``.
        var kind: Kind?

        /// What an item holds.
        enum Kind: String, Sendable {
            /// The profile's record, with its tokens.
            case record
            /// The profile's DPoP private key (a JWK).
            case dpopKey = "dpop-key"
        }
    }

    /// Why no session bus can be reached, without loading anything; nil when one may be: `DBUS_SESSION_BUS_ADDRESS`
    /// is set, or (when it is not set at all) `$XDG_RUNTIME_DIR/bus` exists. Set and empty means no bus. Without one,
    /// GLib would try to start a bus of its own (X11 autolaunch).
    static func sessionBusReason(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"] {
            return address.isEmpty ? "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is empty)" : nil
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, access(runtime + "/bus", F_OK) == 0 {
            return nil
        }
        return "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
    }

    /// The variables of the process's environment that ``sessionBusReason(_:)`` reads (libsecret reads the process's).
    static var processBusEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// Loads libsecret once; throws ``Failure/Kind/unavailable`` without a session bus or without the library.
    static func load() throws(Failure) {
        #if canImport(CSecretService)
        if dl_secret_is_loaded() != 0 { return }
        if let reason = sessionBusReason(processBusEnvironment) { throw Failure(kind: .unavailable, message: reason) }
        var error = [CChar](repeating: 0, count: 512)
        guard dl_secret_load(libraryName, &error, error.count) != 0 else {
            throw Failure(
                kind: .unavailable,
                message: "\(libraryName) cannot be loaded (\(Self.text(error))); install libsecret-1-0")
        }
        #else
        throw Failure(kind: .unavailable, message: "the Secret Service is reached through libsecret, on Linux only")
        #endif
    }

    /// Whether the service's default collection is unlocked; with `unlock`, a locked one is first unlocked through
    /// the service's own prompt (a person answers it, or dismisses it).
    /// - Throws: ``Failure`` (``Failure/Kind/unavailable`` when no service answers, ``Failure/Kind/noCollection``).
    static func defaultCollection(unlock: Bool) throws(Failure) -> Bool {
        try load()
        #if canImport(CSecretService)
        var error = [CChar](repeating: 0, count: 512)
        let state = dl_secret_default_collection(unlock ? 1 : 0, &error, error.count)
        switch state {
        case Int32(DL_SECRET_OK): return true
        case Int32(DL_SECRET_LOCKED): return false
        default: throw failure(Int(state), error)
        }
        #else
        return false
        #endif
    }

    /// Stores `secret` in the default collection, replacing the item with the same attributes, without prompting.
    static func store(_ secret: [UInt8], label: String, attributes: Attributes) throws(Failure) {
        try load()
        #if canImport(CSecretService)
        var error = [CChar](repeating: 0, count: 512)
        let state = withValues(attributes) { values in
            secret.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    dl_secret_store(values, label, $0.baseAddress, $0.count, 0, &error, error.count)
                }
            }
        }
        guard state == Int32(DL_SECRET_OK) else { throw failure(Int(state), error) }
        #endif
    }

    /// The secret of the item with `attributes`, at most `maximumBytes`; nil when there is none. Never prompts.
    static func lookup(_ attributes: Attributes, maximumBytes: Int) throws(Failure) -> [UInt8]? {
        try load()
        #if canImport(CSecretService)
        var error = [CChar](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: maximumBytes)
        let length = withValues(attributes) { values in
            buffer.withUnsafeMutableBytes { dl_secret_lookup(values, $0.baseAddress, $0.count, &error, error.count) }
        }
        defer { wipe(&buffer) }
        if length == DL_SECRET_NOT_FOUND { return nil }
        guard length >= 0 else { throw failure(length, error) }
        return Array(buffer.prefix(length))
        #else
        return nil
        #endif
    }

    /// Deletes every item matching `attributes` (nil values match any); the number deleted. Never prompts.
    @discardableResult
    static func clear(_ attributes: Attributes) throws(Failure) -> Int {
        try load()
        #if canImport(CSecretService)
        var error = [CChar](repeating: 0, count: 512)
        let count = withValues(attributes) { dl_secret_clear($0, &error, error.count) }
        guard count >= 0 else { throw failure(count, error) }
        return count
        #else
        return 0
        #endif
    }

    /// The `profile` attribute of every item matching `attributes`.
    static func profiles(_ attributes: Attributes) throws(Failure) -> [String] {
        try load()
        #if canImport(CSecretService)
        var error = [CChar](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let length = withValues(attributes) { values in
            buffer.withUnsafeMutableBytes {
                dl_secret_list_profiles(values, $0.baseAddress, $0.count, &error, error.count)
            }
        }
        guard length >= 0 else { throw failure(length, error) }
        return buffer.prefix(length).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #else
        return []
        #endif
    }

    // MARK: - Helpers

    #if canImport(CSecretService)
    /// Calls `body` with the four attribute values as C strings (NULL for nil), in the C target's order.
    private static func withValues<Value>(
        _ attributes: Attributes, _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Value
    ) -> Value {
        let strings = [Attributes.application, attributes.profile, attributes.home, attributes.kind?.rawValue]
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let values = copies.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func failure(_ state: Int, _ error: [CChar]) -> Failure {
        let message = text(error)
        switch state {
        case DL_SECRET_LOCKED: return Failure(kind: .locked, message: message)
        case DL_SECRET_TOO_LARGE: return Failure(kind: .tooLarge, message: message)
        case DL_SECRET_NOT_LOADED: return Failure(kind: .unavailable, message: "libsecret is not loaded")
        case DL_SECRET_NOT_FOUND: return Failure(kind: .noCollection, message: message)
        default:
            // GLib's D-Bus errors for "nobody answers": no service, no activation, no bus.
            let absent = ["ServiceUnknown", "not provided by any", "Cannot autolaunch", "NoReply", "Could not connect"]
            return Failure(kind: absent.contains { message.contains($0) } ? .unavailable : .failed, message: message)
        }
    }
    #endif

    private static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes.prefix(400), as: UTF8.self)
    }

    private static func wipe(_ buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { memset(base, 0, $0.count) } }
    }
}
