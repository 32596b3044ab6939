import DeviceLogin
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a confidential client's secret comes from: `--client-secret SECRET`, `--client-secret -` (standard
/// input), `--client-secret-file PATH`, or their variables `DEVICE_LOGIN_CLIENT_SECRET` and
/// `DEVICE_LOGIN_CLIENT_SECRET_FILE`.
///
/// An argument is visible to every user of the machine in the process list (`ps`), so it earns a warning; the
/// environment does not (on Linux `/proc/PID/environ` is readable by the same user only). A file or standard
/// input is read with a bound, one trailing newline dropped, and the result must be a client secret as RFC 6749
/// Appendix A.2 defines it: printable ASCII. A secret file that other users can read is used, with a warning
/// (see ``warning(forMode:path:)``).
enum ClientSecretOption {
    /// The longest client secret accepted, from any source: 4 KiB.
    static let maximumBytes = 4096

    /// The two options, for a command's table.
    /// - Parameter purpose: The first words of `--client-secret`'s help.
    static func options(_ purpose: String) -> [OptionSpec] {
        [
            .value(
                "client-secret", "SECRET",
                purpose + " Given as \"-\", it is read from stdin. Other users see"
                    + " an argument in ps: prefer --client-secret-file."),
            .value(
                "client-secret-file", "PATH",
                "Read the client secret from this file (one trailing newline is dropped)."),
        ]
    }

    /// Where the secret is to come from.
    enum Source: Sendable, Equatable {
        /// `--client-secret SECRET` on the command line.
        case argument(String)
        /// `DEVICE_LOGIN_CLIENT_SECRET`.
        case environment(String)
        /// `--client-secret -`: read standard input to its end.
        case standardInput
        /// `--client-secret-file PATH`.
        case file(String)
    }

    /// What reading a secret needs from the system. Blocking calls; ``read(_:command:input:)`` makes them off the
    /// cooperative pool.
    struct Input: Sendable {
        /// A file's first bytes and its permission bits.
        struct File: Sendable, Equatable {
            var bytes: [UInt8]
            var mode: UInt32
        }

        /// Reads at most the given number of bytes of the file at the path.
        var readFile: @Sendable (_ path: String, _ limit: Int) throws -> File
        /// Reads at most the given number of bytes of standard input, to its end.
        var readStandardInput: @Sendable (_ limit: Int) throws -> [UInt8]

        /// The real file system and standard input.
        static let system = Input(readFile: systemReadFile, readStandardInput: systemReadStandardInput)
    }

    /// A secret and what to tell the user about where it came from.
    struct Secret: Sendable, Equatable {
        var value: String
        var warnings: [String]
    }

    // MARK: - Deciding

    /// Where the options say the secret comes from; nil for none. The command line wins over the environment;
    /// both options on the same footing is a usage error.
    /// - Throws: ``UsageError`` for `--client-secret` together with `--client-secret-file`.
    static func source(_ options: ParsedOptions, command: String) throws -> Source? {
        let value = options.value("client-secret")
        let path = options.value("client-secret-file")
        let valueSource = value.map { value -> Source in
            if value == "-" { return .standardInput }
            return options.isFromEnvironment("client-secret") ? .environment(value) : .argument(value)
        }
        guard let path else { return valueSource }
        guard let valueSource else { return .file(path) }
        switch (options.isFromEnvironment("client-secret"), options.isFromEnvironment("client-secret-file")) {
        case (true, false): return .file(path)
        case (false, true): return valueSource
        default:
            throw UsageError("give --client-secret or --client-secret-file, not both", command: command)
        }
    }

    /// The warning for giving the secret as `source`, if it deserves one.
    static func warning(for source: Source) -> String? {
        guard case .argument = source else { return nil }
        return "--client-secret on the command line is visible to other users in ps; use --client-secret-file or "
            + "--client-secret - (stdin)"
    }

    /// The warning for a secret file with permission bits `mode`, if other users can read it.
    ///
    /// A warning rather than a refusal: the usual ways to hand a program a secret — Docker secrets (mode 0444),
    /// Kubernetes secret volumes (0644 unless `defaultMode` says otherwise) — make files that anyone may read,
    /// inside a container where there is nobody else; and refusing would not make a secret that has been
    /// readable secret again. The token files are another matter: those the store refuses when loose.
    static func warning(forMode mode: UInt32, path: String) -> String? {
        guard mode & 0o044 != 0 else { return nil }
        return "other users can read the client secret file \(path) (mode \(String(mode & 0o777, radix: 8))): "
            + "chmod 600 it"
    }

    /// The secret in `bytes` (read from `origin`, for messages): one trailing newline (LF or CR LF) dropped; empty,
    /// over ``maximumBytes``, or not printable ASCII (RFC 6749 Appendix A.2, `VSCHAR`) refused.
    /// - Throws: ``DeviceLoginError`` with code `configuration`, naming `origin` and never the secret.
    static func secret(_ bytes: [UInt8], from origin: String) throws -> String {
        guard bytes.count <= maximumBytes else {
            throw failure("the client secret from \(origin) is longer than \(maximumBytes) bytes")
        }
        var secret = bytes[...]
        if secret.last == UInt8(ascii: "\n") {
            secret = secret.dropLast()
            if secret.last == UInt8(ascii: "\r") { secret = secret.dropLast() }
        }
        guard !secret.isEmpty else {
            throw failure("the client secret from \(origin) is empty")
        }
        guard secret.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw DeviceLoginError(
                .configuration, "the client secret from \(origin) has a character that is not printable ASCII",
                hint: "a client secret is printable ASCII (RFC 6749 Appendix A.2): look for a second line, a tab or "
                    + "a byte order mark"
            )
        }
        return String(decoding: secret, as: UTF8.self)
    }

    // MARK: - Reading

    /// The client secret the options give, read and checked, with any warnings; nil when they give none.
    /// - Throws: ``UsageError`` for both options at once; ``DeviceLoginError`` (`configuration`) for a file or
    ///   standard input that cannot be read, or a secret that is empty, too long or not printable ASCII.
    static func read(_ options: ParsedOptions, command: String, input: Input = .system) async throws -> Secret? {
        guard let source = try source(options, command: command) else { return nil }
        var warnings = warning(for: source).map { [$0] } ?? []
        let value: String
        switch source {
        case .argument(let text):
            value = try secret(Array(text.utf8), from: "--client-secret")
        case .environment(let text):
            value = try secret(Array(text.utf8), from: "DEVICE_LOGIN_CLIENT_SECRET")
        case .standardInput:
            let bytes = try await offPool { try input.readStandardInput(maximumBytes + 1) }
            value = try secret(bytes, from: "standard input")
        case .file(let path):
            let file = try await offPool { try input.readFile(path, maximumBytes + 1) }
            if let warning = warning(forMode: file.mode, path: path) { warnings.append(warning) }
            value = try secret(file.bytes, from: path)
        }
        return Secret(value: value, warnings: warnings)
    }

    /// Runs a blocking read on a Dispatch thread, not on the cooperative pool: standard input may be a pipe whose
    /// writer takes its time. (Ctrl-C still ends the process: ``InterruptHandler`` gives up waiting after its grace
    /// period.)
    private static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Opens `path` (following symbolic links: Kubernetes mounts secrets through them) and reads at most `limit`
    /// bytes; a regular file larger than that is refused before it is read.
    private static func systemReadFile(_ path: String, limit: Int) throws -> Input.File {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw failure("cannot open the client secret file \(path): " + String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw failure("cannot read the client secret file \(path): " + String(cString: strerror(errno)))
        }
        if status.st_mode & S_IFMT == S_IFREG, status.st_size > limit - 1 {
            throw failure("the client secret from \(path) is longer than \(maximumBytes) bytes")
        }
        let bytes = try readUpTo(descriptor, limit: limit, what: "the client secret file \(path)")
        return Input.File(bytes: bytes, mode: UInt32(status.st_mode))
    }

    /// Reads standard input to its end, at most `limit` bytes. A terminal is refused: what is typed there is shown.
    private static func systemReadStandardInput(limit: Int) throws -> [UInt8] {
        guard isatty(0) == 0 else {
            throw DeviceLoginError(
                .configuration, "--client-secret - reads the secret from standard input, which is a terminal here",
                hint: "pipe it in (… | device-login …), or use --client-secret-file"
            )
        }
        return try readUpTo(0, limit: limit, what: "standard input")
    }

    /// Reads from `descriptor` until its end or `limit` bytes (the PAM configuration is read with it too).
    static func readUpTo(_ descriptor: Int32, limit: Int, what: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < limit {
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, &buffer, min(buffer.count, limit - bytes.count))
            #else
            let count = Darwin.read(descriptor, &buffer, min(buffer.count, limit - bytes.count))
            #endif
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read the client secret from \(what): " + String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    private static func failure(_ message: String) -> DeviceLoginError {
        DeviceLoginError(.configuration, message)
    }
}
