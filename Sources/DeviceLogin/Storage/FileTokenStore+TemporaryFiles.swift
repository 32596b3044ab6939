#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// The name of a new temporary file for writing `path`: `.<file name>.<random decimal>.tmp`, in the same
    /// directory, so that the rename over `path` is atomic.
    static func temporaryFileName(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return ".\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
    }

    /// Whether `entry` is a temporary file of profile `name`'s record, DPoP key or pending sign-in, by the exact
    /// pattern ``temporaryFileName(for:)`` makes: `.NAME.json.<digits>.tmp`, `.NAME.dpop.jwk.<digits>.tmp` or
    /// `.NAME.pending.<digits>.tmp`. Profile `work`
    /// does not claim `.work.json.json.1.tmp`, which belongs to profile `work.json`.
    static func isTemporaryFile(_ entry: String, ofProfile name: String) -> Bool {
        let suffix = ".tmp"
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return ["." + name + ".json.", "." + name + ".dpop.jwk.", "." + name + ".pending."].contains { prefix in
            guard entry.hasPrefix(prefix), entry.hasSuffix(suffix), entry.count > prefix.count + suffix.count else {
                return false
            }
            let middle = entry.dropFirst(prefix.count).dropLast(suffix.count)
            return middle.utf8.count <= 20 && middle.utf8.allSatisfy { digits.contains($0) }
        }
    }

    /// Removes the temporary files a writer of profile `name` left behind when it was killed between writing and
    /// renaming; one may hold a rotated refresh token that nothing will ever read.
    ///
    /// Only while holding the profile's lock: every writer of this library writes inside
    /// ``withExclusiveAccess(profile:_:)``, so with the lock held no temporary file of the profile is in use. With
    /// `holdingLock` false the lock is tried once without waiting, and nothing is removed when another holds it
    /// (nor when this process holds it through another descriptor: it swept when it took it). A `save` called
    /// outside the exclusive section may find its own temporary file gone and fail; the old record stays whole.
    ///
    /// Best effort, for files that are harmless to leave: every failure is ignored.
    /// - Parameters:
    ///   - name: The profile.
    ///   - holdingLock: Whether the caller holds the profile's lock.
    func removeStaleTemporaryFiles(profile name: String, holdingLock: Bool) {
        let stale = staleTemporaryFiles(profile: name)
        guard !stale.isEmpty else { return }
        guard !holdingLock else {
            removeTemporaryFiles(stale)
            return
        }
        guard let path = try? lockPath(profile: name),
            let fd = try? POSIX.openFile(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        else { return }
        defer { POSIX.closeFile(fd) }
        guard (try? POSIX.tryLock(fd)) == true else { return }
        defer { POSIX.unlock(fd) }
        // Listed again under the lock: a writer that held it before has renamed its file by now.
        removeTemporaryFiles(staleTemporaryFiles(profile: name))
    }

    private func staleTemporaryFiles(profile name: String) -> [String] {
        guard let entries = try? POSIX.directoryEntries(directory) else { return [] }
        return entries.filter { Self.isTemporaryFile($0, ofProfile: name) }
    }

    private func removeTemporaryFiles(_ entries: [String]) {
        for entry in entries {
            _ = try? POSIX.removeFile(Self.join(directory, entry))
        }
    }
}
