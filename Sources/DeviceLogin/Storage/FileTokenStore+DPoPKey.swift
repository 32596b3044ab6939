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
        let path = try dpopKeyPath(profile: name)
        let bytes = try await BlockingIO.run { [self] () throws -> [UInt8]? in
            guard try checkDirectory() else { return nil }
            return try readPrivateFile(at: path, kind: "DPoP key file", maximumBytes: Self.maximumKeyFileBytes)
        }
        guard let bytes else { return nil }
        let hint = "move it aside (mv \(path) \(path).bad) and sign in again with DPoP"
        guard let object = try? JSONValue.decodeObject(from: Data(bytes)) else {
            throw DeviceLoginError(
                .storage, "the DPoP key file \(path) is corrupt: it is not a JSON object", hint: hint)
        }
        do {
            return try ECP256PrivateKey(jsonObject: object)
        } catch {
            throw DeviceLoginError(.storage, "the DPoP key file \(path) cannot be used: \(error.message)", hint: hint)
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
