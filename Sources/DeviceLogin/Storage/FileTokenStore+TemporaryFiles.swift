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

    /// Settles the temporary files a writer of profile `name` left behind when it was killed between writing and
    /// renaming; one may hold the only copy of a rotated refresh token, which the server has already replaced.
    ///
    /// The newest of the record's temporary files is renamed into place when it is a complete record of this profile
    /// in a format this version reads, newer than the record in place by ``ProfileRecord/revision`` (or there is
    /// none): the writer had finished writing and flushing it, and only the rename was missing. A torn, older, equal,
    /// unsafe or foreign file is removed, as are the DPoP key's and the pending sign-in's temporary files, and every
    /// temporary file when the record in place cannot be read (a corrupt record is reported, never replaced here).
    ///
    /// Only while holding the profile's lock: every writer of this library writes inside
    /// ``withExclusiveAccess(profile:_:)``, so with the lock held no temporary file of the profile is in use. With
    /// `holdingLock` false the lock is tried once without waiting, and nothing is touched when another holds it
    /// (nor when this process holds it through another descriptor: it swept when it took it). A `save` called
    /// outside the exclusive section may find its own temporary file gone and fail; the old record, or the new one
    /// already in place, stays whole.
    ///
    /// Best effort, for files that are harmless to leave: every failure is ignored.
    /// - Parameters:
    ///   - name: The profile.
    ///   - holdingLock: Whether the caller holds the profile's lock.
    func removeStaleTemporaryFiles(profile name: String, holdingLock: Bool) {
        let stale = staleTemporaryFiles(profile: name)
        guard !stale.isEmpty else { return }
        guard !holdingLock else {
            settleTemporaryFiles(stale, profile: name)
            return
        }
        guard let path = try? lockPath(profile: name),
            let fd = try? POSIX.openLockFile(path)
        else { return }
        defer { POSIX.closeFile(fd) }
        guard (try? POSIX.tryLock(fd)) == true else { return }
        defer { POSIX.unlock(fd) }
        // A lock on a lock file that `remove(profile:)` deleted meanwhile excludes no one (see `takeLock(at:)`).
        guard isLockFile(fd, at: path) else { return }
        // Listed again under the lock: a writer that held it before has renamed its file by now.
        settleTemporaryFiles(staleTemporaryFiles(profile: name), profile: name)
    }

    /// The first half of ``save(_:)``, for crash tests: the record's temporary file, complete and flushed to disk,
    /// numbered as the save would number it, and not renamed into place.
    /// - Returns: The temporary file's path.
    package func writeTemporaryFileOnly(_ record: ProfileRecord) throws -> String {
        let path = try filePath(profile: record.name)
        return try writeTemporaryFile(try prepareSave(record, path: path), for: path, kind: "token file")
    }

    /// Renames the newest complete record among `entries` into place when it is newer, and removes the rest.
    private func settleTemporaryFiles(_ entries: [String], profile name: String) {
        var remaining = entries
        if let recovered = newerRecordFile(among: entries, profile: name), let path = try? filePath(profile: name),
            (try? POSIX.renameFile(Self.join(directory, recovered), path)) != nil
        {
            try? POSIX.flushDirectory(directory)
            remaining.removeAll { $0 == recovered }
        }
        removeTemporaryFiles(remaining)
    }

    /// The record temporary file among `entries` to put in place, if any: complete, of profile `name`, in a format
    /// this version reads, and the newest of those newer than the record in place.
    private func newerRecordFile(among entries: [String], profile name: String) -> String? {
        let prefix = "." + name + ".json."
        let candidates = entries.filter { $0.hasPrefix(prefix) }
        guard !candidates.isEmpty, let path = try? filePath(profile: name) else { return nil }
        let inPlace: Int
        do {
            let bytes = try readPrivateFile(at: path, kind: "token file", maximumBytes: Self.maximumFileBytes)
            inPlace = try bytes.map { try Self.decode($0, path: path, profile: name).revision } ?? 0
        } catch {
            return nil
        }
        var newest: (entry: String, revision: Int)?
        for entry in candidates {
            let temporary = Self.join(directory, entry)
            guard
                let bytes = try? readPrivateFile(
                    at: temporary, kind: "temporary token file", maximumBytes: Self.maximumFileBytes),
                let record = try? Self.decode(bytes, path: temporary, profile: name),
                record.version >= 1, record.revision > inPlace, record.revision > newest?.revision ?? Int.min
            else { continue }
            newest = (entry, record.revision)
        }
        return newest?.entry
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
