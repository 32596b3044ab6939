#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// Checks that profile `name` can be saved here — before a sign-in asks the person for anything.
    ///
    /// Tokens that arrive after the person approved and then cannot be saved are lost (and a command-line tool
    /// must revoke them). Every store problem that can be seen in advance is therefore reported here, with the
    /// same errors a later save or read would give:
    /// - An existing directory must be a real directory — not a symbolic link, as a `DEVICE_LOGIN_HOME` may be —
    ///   that belongs to this user and that no other user can access. A missing one is not created here (a sign-in
    ///   that fails before its tokens arrive leaves nothing behind): the nearest existing parent must be a directory
    ///   this user may create entries in, so that the save can create it (mode `0700`, missing parents too).
    /// - The lock file, the token file and the DPoP key file, when they exist, must be regular files (not symbolic
    ///   links) of this user; the token and key files must have no group or other permission bits.
    /// - A file can be created in an existing directory (not read-only, not full; the probe is removed at once) and
    ///   an existing lock file opened.
    ///
    /// It neither reads nor changes the profile's record, takes no lock, and leaves no file or directory behind.
    ///
    /// ```swift
    /// try await store.checkReady(profile: "work")  // then the device authorization request
    /// ```
    /// - Parameter name: The profile name.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/storage`` naming the path and what to do;
    ///   ``DeviceLoginError/Code/configuration`` for an invalid name.
    public func checkReady(profile name: String) async throws {
        let file = try filePath(profile: name)
        let lock = try lockPath(profile: name)
        try await BlockingIO.run { [self] in
            guard try checkDirectory() else {
                try checkDirectoryCanBeCreated()
                return
            }
            try checkExistingFile(at: lock, kind: "lock file", privateMode: nil)
            try checkExistingFile(at: file, kind: "token file", privateMode: "600")
            try checkExistingFile(at: dpopKeyPath(profile: name), kind: "DPoP key file", privateMode: "600")
            let probe = Self.join(directory, Self.temporaryFileName(for: file))
            do {
                let fd = try POSIX.createNewFile(probe)
                POSIX.closeFile(fd)
                try POSIX.removeFile(probe)
            } catch let error as SystemCallError {
                throw storageError(error, doing: "create a file in", path: directory)
            }
            do {
                POSIX.closeFile(try POSIX.openFile(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC, mode: 0o600))
            } catch let error as SystemCallError where error.code == ENOENT {
                // Created by the first section that needs it; the probe above showed that it can be.
            } catch let error as SystemCallError {
                throw storageError(error, doing: "open the lock file", path: lock)
            }
        }
    }

    /// Checks that the missing directory can be created, without creating it: the nearest existing ancestor is a
    /// directory in which this user may create entries. The errors are those creating it would give.
    private func checkDirectoryCanBeCreated() throws {
        var missing = directory
        var parent = directory
        while true {
            let cut = parent.lastIndex(of: "/") ?? parent.startIndex
            missing = parent
            parent = cut == parent.startIndex ? "/" : String(parent[..<cut])
            let status: POSIX.Status?
            do {
                status = try POSIX.fileStatus(following: parent)
            } catch let error as SystemCallError {
                throw storageError(error, doing: "create the token directory", path: missing)
            }
            guard let status else {
                if parent == "/" { break }
                continue
            }
            guard status.type == POSIX.directory else {
                throw storageError(
                    SystemCallError(call: "mkdir", code: ENOTDIR), doing: "create the token directory",
                    path: missing)
            }
            guard access(parent, W_OK | X_OK) == 0 else {
                throw storageError(
                    SystemCallError(call: "mkdir", code: errno), doing: "create the token directory",
                    path: missing)
            }
            return
        }
    }

    /// Checks a file of the store when it exists: a regular file (not a symbolic link) of this user, and, when
    /// `privateMode` is given, without group or other permission bits (the `chmod` hint names `privateMode`).
    private func checkExistingFile(at path: String, kind: String, privateMode: String?) throws {
        guard let status = try inspect(path, kind: kind, linkHint: "remove the link (rm \(path)) and try again") else {
            return
        }
        guard status.type == POSIX.regularFile else {
            throw DeviceLoginError(
                .storage, "the \(kind) \(path) is not a regular file", hint: "move it aside (mv \(path) \(path).bad)"
            )
        }
        if let privateMode {
            try checkOwnership(status, path: path, kind: kind, mode: privateMode)
        } else {
            try checkOwner(status, path: path, kind: kind)
        }
    }
}
