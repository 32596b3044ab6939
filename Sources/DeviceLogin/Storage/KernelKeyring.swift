import CKeyring

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few calls of the Linux kernel's key retention service (keyrings(7)) that ``KeyringTokenStore`` needs: one
/// `user` key per name, in one keyring, read and written whole. Every call is one system call and may be made on any
/// thread; none waits for anything but the kernel.
///
/// **Which keyring.** ``KeyringTokenStore/Keyring/persistent`` is the user's persistent keyring (`KEYCTL_GET_PERSISTENT`): it outlives
/// the login session (and every process) but not a reboot, and the kernel drops it when no process has asked for it
/// for `/proc/sys/kernel/keys/persistent_keyring_expiry` seconds (3 days by default). Asking for it links it into the
/// calling process's own keyring, which gives the process possession of its keys and leaves nothing behind.
/// ``KeyringTokenStore/Keyring/session`` is the session keyring of the calling process: gone when the session ends (tests use it, in a
/// session keyring of their own, so that they never touch the user's keys).
///
/// **Who may read.** Each key is written with ``permissions``: every right for a possessor (a process that reached
/// the key through its own keyrings, as every process of the user can through the persistent keyring) and only
/// "view" (its type and description, never its payload) for the owner without possession; nothing for the group or
/// for other users. The payload never leaves the kernel but through `keyctl read` by a possessor.
struct KernelKeyring: Sendable {
    /// The keyring the keys live in.
    typealias Anchor = KeyringTokenStore.Keyring

    /// `user` keys hold at most 32767 bytes (keyrings(7)).
    static let maximumPayloadBytes = 32_767
    /// The permissions of every key: possessor all (`0x3f000000`), user view (`0x00010000`), group and other none.
    static let permissions: UInt32 = 0x3f01_0000

    private static let threadKeyring: Int32 = -1
    private static let processKeyring: Int32 = -2
    private static let sessionKeyring: Int32 = -3

    /// The anchor.
    let anchor: Anchor

    /// The keyring's serial number; for ``KeyringTokenStore/Keyring/persistent`` it is linked into the process keyring (created on
    /// demand), which makes this process a possessor.
    func keyring() throws(SystemCallError) -> Int32 {
        let serial: Int32
        switch anchor {
        case .persistent: serial = dl_keyctl_get_persistent(-1, Self.processKeyring)
        case .session: serial = dl_keyctl_get_keyring_id(Self.sessionKeyring, 1)
        case .serial(let keyring):
            // Credentials, and so keyrings, are per thread: link the keyring into this thread's keyring, which makes
            // the thread a possessor.
            let thread = dl_keyctl_get_keyring_id(Self.threadKeyring, 1)
            guard thread >= 0, dl_keyctl_link(keyring, thread) == 0 else {
                throw SystemCallError(call: "keyctl link", code: errno)
            }
            serial = keyring
        }
        guard serial >= 0 else { throw SystemCallError(call: "keyctl", code: errno) }
        return serial
    }

    /// The payload of the key `description`, or nil when there is none. A revoked or expired key is reported as
    /// such (`EKEYREVOKED`, `EKEYEXPIRED`): the caller decides.
    func read(_ description: String) throws(SystemCallError) -> [UInt8]? {
        guard let key = try find(description) else { return nil }
        var buffer = [UInt8](repeating: 0, count: Self.maximumPayloadBytes + 1)
        let length = buffer.withUnsafeMutableBytes { dl_keyctl_read(key, $0.baseAddress, $0.count) }
        guard length >= 0 else {
            if errno == ENOKEY { return nil }
            throw SystemCallError(call: "keyctl read", code: errno)
        }
        guard length <= Self.maximumPayloadBytes else { throw SystemCallError(call: "keyctl read", code: EMSGSIZE) }
        return Array(buffer.prefix(length))
    }

    /// Creates the key `description` with `payload`, or replaces its payload: one `add_key`, atomic for every
    /// reader. A revoked or expired key of that name is unlinked first.
    func write(_ description: String, _ payload: [UInt8]) throws(SystemCallError) {
        guard payload.count <= Self.maximumPayloadBytes else { throw SystemCallError(call: "add_key", code: EMSGSIZE) }
        let keyring = try keyring()
        var key = add(description, payload, keyring)
        if key < 0, errno == EKEYREVOKED || errno == EKEYEXPIRED {
            try unlinkDead(description, from: keyring)
            key = add(description, payload, keyring)
        }
        guard key >= 0 else { throw SystemCallError(call: "add_key", code: errno) }
        guard dl_keyctl_setperm(key, Self.permissions) == 0 else {
            let code = errno
            _ = dl_keyctl_invalidate(key)
            throw SystemCallError(call: "keyctl setperm", code: code)
        }
    }

    /// Deletes the key `description` for every process (`KEYCTL_INVALIDATE`); nothing when there is none. A revoked
    /// key is unlinked instead.
    /// - Returns: Whether there was a key.
    @discardableResult
    func remove(_ description: String) throws(SystemCallError) -> Bool {
        let key: Int32?
        do throws(SystemCallError) {
            key = try find(description)
        } catch  where error.keyIsDead {
            try unlinkDead(description, from: try keyring())
            return true
        }
        guard let key else { return false }
        guard dl_keyctl_invalidate(key) == 0 || errno == ENOKEY else {
            throw SystemCallError(call: "keyctl invalidate", code: errno)
        }
        return true
    }

    /// The descriptions of the `user` keys directly in the keyring that start with `prefix`.
    func descriptions(withPrefix prefix: String) throws(SystemCallError) -> [String] {
        let keyring = try keyring()
        var serials = [Int32](repeating: 0, count: 1024)
        let length = serials.withUnsafeMutableBytes { dl_keyctl_read(keyring, $0.baseAddress, $0.count) }
        guard length >= 0 else { throw SystemCallError(call: "keyctl read", code: errno) }
        let count = min(serials.count, length / MemoryLayout<Int32>.size)
        var found: [String] = []
        for serial in serials.prefix(count) {
            guard let description = describe(serial), description.type == "user",
                description.name.hasPrefix(prefix)
            else { continue }
            found.append(description.name)
        }
        return found
    }

    /// Revokes the key `description` (`KEYCTL_REVOKE`): it stays, but every use of it fails. For tests of a key
    /// revoked underneath the store.
    func revoke(_ description: String) throws(SystemCallError) {
        guard let key = try find(description) else { throw SystemCallError(call: "keyctl search", code: ENOKEY) }
        guard dl_keyctl_revoke(key) == 0 else { throw SystemCallError(call: "keyctl revoke", code: errno) }
    }

    /// The permissions of the key `description` (`KEYCTL_DESCRIBE`), nil when there is none.
    func permissions(of description: String) throws(SystemCallError) -> UInt32? {
        guard let key = try find(description), let described = describe(key) else { return nil }
        return UInt32(described.permissions, radix: 16)
    }

    /// A new, empty keyring of this user's, for tests (a test process's threads each have their own credentials,
    /// so no keyring of the session is theirs alone): linked into the calling thread's keyring, and open to the
    /// user's other threads (`0x3f3f0000`), which link it into theirs on each use (``KeyringTokenStore/Keyring/serial(_:)``).
    static func makeTestKeyring(_ description: String) throws(SystemCallError) -> Int32 {
        let thread = dl_keyctl_get_keyring_id(threadKeyring, 1)
        guard thread >= 0 else { throw SystemCallError(call: "keyctl", code: errno) }
        let keyring = dl_add_key("keyring", description, nil, 0, thread)
        guard keyring >= 0 else { throw SystemCallError(call: "add_key", code: errno) }
        guard dl_keyctl_setperm(keyring, 0x3f3f_0000) == 0 else { throw SystemCallError(call: "setperm", code: errno) }
        return keyring
    }

    // MARK: - The calls

    private func add(_ description: String, _ payload: [UInt8], _ keyring: Int32) -> Int32 {
        payload.withUnsafeBytes { bytes in
            // add_key refuses a NULL payload for `user` keys only when its length is not 0; one byte is always there.
            dl_add_key("user", description, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), bytes.count, keyring)
        }
    }

    /// The key's serial number, or nil when the keyring has none of that description.
    private func find(_ description: String) throws(SystemCallError) -> Int32? {
        let key = dl_keyctl_search(try keyring(), "user", description)
        guard key >= 0 else {
            if errno == ENOKEY { return nil }
            throw SystemCallError(call: "keyctl search", code: errno)
        }
        return key
    }

    /// Unlinks every revoked or expired key `description` directly in `keyring` (search cannot return those).
    private func unlinkDead(_ description: String, from keyring: Int32) throws(SystemCallError) {
        var serials = [Int32](repeating: 0, count: 1024)
        let length = serials.withUnsafeMutableBytes { dl_keyctl_read(keyring, $0.baseAddress, $0.count) }
        guard length >= 0 else { throw SystemCallError(call: "keyctl read", code: errno) }
        for serial in serials.prefix(min(serials.count, length / MemoryLayout<Int32>.size)) {
            // A revoked key cannot be described: unlink every member that cannot, or that has this description.
            let described = describe(serial)
            guard described == nil || (described?.type == "user" && described?.name == description) else { continue }
            if described == nil, errno != EKEYREVOKED, errno != EKEYEXPIRED { continue }
            _ = dl_keyctl_unlink(serial, keyring)
        }
    }

    /// A key's type and description (`KEYCTL_DESCRIBE`: "type;uid;gid;perm;description"), nil when it cannot be
    /// described (errno tells why).
    private func describe(_ serial: Int32) -> (type: String, permissions: String, name: String)? {
        var buffer = [CChar](repeating: 0, count: 4200)
        let length = buffer.withUnsafeMutableBufferPointer { dl_keyctl_describe(serial, $0.baseAddress, $0.count) }
        guard length > 0, length <= buffer.count else { return nil }
        let text = String(decoding: buffer.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5 else { return nil }
        return (String(fields[0]), String(fields[3]), String(fields[4]))
    }
}

extension SystemCallError {
    /// Whether a key call failed because the key is dead: revoked or expired (`EKEYREVOKED`, `EKEYEXPIRED`).
    var keyIsDead: Bool { code == EKEYREVOKED || code == EKEYEXPIRED }
    /// Whether the kernel keyring cannot be used here at all: no key calls (`ENOSYS`), or a container's policy
    /// forbids them (`EPERM`, `EACCES`).
    var keyringIsUnavailable: Bool { code == ENOSYS || code == EPERM || code == EACCES }
    /// Whether the user's key quota is full (`EDQUOT`).
    var keyQuotaIsFull: Bool { code == EDQUOT }
    /// Whether the payload is larger than a key holds (`EMSGSIZE`).
    var keyIsTooLarge: Bool { code == EMSGSIZE }
}
