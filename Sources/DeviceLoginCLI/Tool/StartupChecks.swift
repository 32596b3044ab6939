import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is checked once the options are parsed and before a command runs: files the options name, which would
/// otherwise fail only at the first request, reported as a network failure after a sign-in had begun. (`--header`
/// is checked where `login` parses it, ``LoginSettings/header(_:command:)``.)
enum StartupChecks {
    /// The largest CA file accepted: 1 MiB (a distribution's whole bundle is about 200 KiB).
    static let maximumCAFileBytes = 1 << 20
    /// What every PEM certificate starts with (RFC 7468 §5.1).
    static let certificateMarker = Array("-----BEGIN CERTIFICATE-----".utf8)

    /// Runs the checks for the options a command was given.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` (exit 78) naming the
    ///   option at fault.
    static func check(_ options: ParsedOptions) throws {
        if let path = options.value("ca-file") { try checkCAFile(path) }
    }

    /// Checks that `path` is a file libcurl can use as `--ca-file`: it opens for reading, is a regular file (a
    /// symbolic link to one is fine), holds at most ``maximumCAFileBytes`` and contains a PEM certificate.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` saying what is wrong.
    static func checkCAFile(_ path: String) throws {
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let error = errno
            switch error {
            case ENOENT, ENOTDIR: throw caFileProblem(path, "no such file")
            case EACCES, EPERM: throw caFileProblem(path, "cannot be read: permission denied")
            default: throw caFileProblem(path, "cannot be read: " + String(cString: strerror(error)))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw caFileProblem(path, "cannot be read: " + String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw caFileProblem(path, "is a directory, not a file")
        default: throw caFileProblem(path, "is not a regular file")
        }
        guard status.st_size <= off_t(maximumCAFileBytes) else {
            throw caFileProblem(path, "is larger than 1 MiB")
        }
        guard let found = containsCertificate(descriptor) else {
            throw caFileProblem(path, "cannot be read: " + String(cString: strerror(errno)))
        }
        guard found else { throw caFileProblem(path, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)") }
    }

    /// Whether the file holds the PEM marker within its first ``maximumCAFileBytes``, reading no further than
    /// needed; nil when a read fails.
    private static func containsCertificate(_ descriptor: Int32) -> Bool? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var searchedUpTo = 0
        while bytes.count < maximumCAFileBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return false }
            bytes += chunk.prefix(count)
            if contains(certificateMarker, in: bytes, from: searchedUpTo) { return true }
            searchedUpTo = max(0, bytes.count - certificateMarker.count + 1)
        }
        return false
    }

    /// Whether `needle` occurs in `haystack` at an offset of `start` or later.
    private static func contains(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var offset = start
        while offset + needle.count <= haystack.count {
            if haystack[offset] == needle[0], haystack[offset..<offset + needle.count].elementsEqual(needle) {
                return true
            }
            offset += 1
        }
        return false
    }

    private static func caFileProblem(_ path: String, _ problem: String) -> DeviceLoginError {
        DeviceLoginError(
            .configuration, "--ca-file \(path) \(problem)",
            hint: "give a PEM file of the CA certificates to trust, or leave --ca-file out to trust the system's"
        )
    }
}
