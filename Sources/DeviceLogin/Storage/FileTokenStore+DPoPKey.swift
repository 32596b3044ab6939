#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileTokenStore {
    /// The largest DPoP key file read: 16 KiB (a P-256 private JWK is about 200 bytes).
    public static let maximumKeyFileBytes = 16 << 10

    /// The file holding the DPoP key of a profile that uses DPoP (``Profile/usesDPoP``): `<profile>.dpop.jwk` beside
    /// the profile's file.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func dpopKeyPath(profile name: String) throws -> String {
        try Profile.validate(name: name)
        return Self.join(directory, name + ".dpop.jwk")
    }

    /// Reads a profile's DPoP key, with the checks a token file gets: a regular file of this user, mode `0600`, no
    /// symbolic link, at most ``maximumKeyFileBytes``.
    /// - Parameter name: The profile name.
    /// - Returns: The key, or nil when the profile has no key file.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when the file is unsafe, or is not a
    ///   P-256 private JWK (or libcrypto cannot read it), naming the file and what to do.
    public func loadDPoPKey(profile name: String) async throws -> ECP256PrivateKey? {
        try await loadDPoPKey(profile: name, in: .file)
    }

    /// Reads a profile's DPoP key from the store its tokens rest in: the file beside the profile (`file`), the
    /// kernel keyring key `<namespace>:<profile>:dpop-key` (`keyring`), or the Secret Service item `kind=dpop-key`
    /// (`secret-service`).
    /// - Returns: The key, or nil when that store has none.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` when it cannot be read or used.
    public func loadDPoPKey(profile name: String, in kind: TokenStoreKind) async throws -> ECP256PrivateKey? {
        let path = try dpopKeyPath(profile: name)
        let place = kind == .file ? "file " + path : try dpopKeyPlace(profile: name, in: kind)
        let bytes = try await BlockingIO.run { [self] () throws -> [UInt8]? in
            switch kind {
            case .file:
                guard try checkDirectory() else { return nil }
                return try readPrivateFile(at: path, kind: "DPoP key file", maximumBytes: Self.maximumKeyFileBytes)
            case .keyring:
                return try keyringStore.readOnCallingThread(try dpopKeyDescription(profile: name))
            case .secretService:
                return try secretServiceStore.readDPoPKeyOnCallingThread(profile: name)
            }
        }
        guard let bytes else { return nil }
        let hint =
            kind == .file
            ? "move it aside (mv \(path) \(path).bad) and sign in again with DPoP"
            : "sign in again with DPoP: device-login login --profile \(name) --dpop"
        guard let object = try? JSONValue.decodeObject(from: Data(bytes)) else {
            throw DeviceLoginError(.storage, "the DPoP key \(place) is corrupt: it is not a JSON object", hint: hint)
        }
        do {
            return try ECP256PrivateKey(jsonObject: object)
        } catch {
            throw DeviceLoginError(.storage, "the DPoP key \(place) cannot be used: \(error.message)", hint: hint)
        }
    }

    /// Where a profile's DPoP key rests in `kind`, for people: the file's path, the keyring key's description, or
    /// the Secret Service item.
    public func dpopKeyPlace(profile name: String, in kind: TokenStoreKind) throws -> String {
        switch kind {
        case .file: try dpopKeyPath(profile: name)
        case .keyring: "the kernel keyring key " + (try dpopKeyDescription(profile: name))
        case .secretService: "the Secret Service item of profile \(name) (kind dpop-key)"
        }
    }

    /// The kernel keyring key of a profile's DPoP key: `<namespace>:<profile>:dpop-key` (a profile name has no `:`,
    /// so it is never a profile's key).
    func dpopKeyDescription(profile name: String) throws -> String {
        try keyringStore.keyDescription(profile: name) + ":dpop-key"
    }

    /// Saves a profile's DPoP key in the store its tokens rest in (``loadDPoPKey(profile:in:)``); for another store
    /// than the file, the key file is then removed, so the key rests in one place.
    public func saveDPoPKey(_ key: ECP256PrivateKey, profile name: String, in kind: TokenStoreKind) async throws {
        guard kind != .file else { return try await saveDPoPKey(key, profile: name) }
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONValue.encode(try key.privateJSONWebKey()))
        } catch {
            throw DeviceLoginError(.storage, "the DPoP key of profile \(name) could not be encoded")
        }
        let description = try dpopKeyDescription(profile: name)
        try await BlockingIO.run { [self] in
            if kind == .keyring {
                do throws(SystemCallError) {
                    try keyringStore.kernel.write(description, bytes)
                } catch {
                    throw keyringStore.storageError(error, doing: "write", description: description)
                }
            } else {
                try secretServiceStore.saveDPoPKeyOnCallingThread(bytes, profile: name)
            }
            guard try checkDirectory() else { return }
            try removeFile(at: try dpopKeyPath(profile: name), kind: "DPoP key file")
        }
    }

    /// Saves a profile's DPoP key as its private JWK (RFC 7518 §6.2.2), atomically and durably like a record: a new
    /// file of mode `0600`, flushed, renamed over the old one.
    /// - Parameters:
    ///   - key: The key; its private part is written, so the file is as secret as a refresh token.
    ///   - name: The profile name.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    public func saveDPoPKey(_ key: ECP256PrivateKey, profile name: String) async throws {
        let path = try dpopKeyPath(profile: name)
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONValue.encode(try key.privateJSONWebKey())) + [UInt8(ascii: "\n")]
        } catch {
            throw DeviceLoginError(.storage, "the DPoP key could not be written for \(path)")
        }
        try await BlockingIO.run { [self] in
            try ensureDirectory()
            try writeAtomically(bytes, to: path, kind: "DPoP key file")
        }
    }

    /// Deletes a profile's DPoP key in `kind` (the file, the keyring key, the Secret Service item); nothing happens
    /// when there is none.
    public func removeDPoPKey(profile name: String, in kind: TokenStoreKind) async throws {
        let description = try dpopKeyDescription(profile: name)
        switch kind {
        case .file: try await removeDPoPKey(profile: name)
        case .keyring:
            try await BlockingIO.run { [self] in try removeKeyringKey(description: description) }
        case .secretService:
            try await BlockingIO.run { [self] in
                try secretServiceStore.removeOnCallingThread(profile: name, kind: .dpopKey)
            }
        }
    }

    /// Deletes a profile's DPoP key file; nothing happens when there is none.
    /// - Parameter name: The profile name.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage``.
    public func removeDPoPKey(profile name: String) async throws {
        let path = try dpopKeyPath(profile: name)
        try await BlockingIO.run { [self] in
            guard try checkDirectory() else { return }
            try removeFile(at: path, kind: "DPoP key file")
        }
    }
}
