import DeviceLogin

/// What git asks a credential helper, and the encoding of the helper's answer: git's credential protocol
/// (git-credential(1), "INPUT/OUTPUT FORMAT"; gitcredentials(7), "CUSTOM HELPERS").
///
/// A message is one attribute a line, `key=value`, ended by a blank line or the end of input. "The key may contain
/// any bytes except `=`, newline, or NUL. The value may contain any bytes except newline or NUL." A key that ends
/// in `[]` holds a list: each line adds a value, in order, and an empty value clears the list. Unknown keys are
/// ignored; of a key given twice, the last value counts (as git's own reader does).
///
/// Where git's reader fails, this one fails too, and it is bounded: a line without `=` (git: "invalid credential
/// line"), a NUL byte, and more than ``maximumLength`` bytes are ``CredentialInputError``s. A line may end in
/// `\r\n` (git's reader drops the `\r` as well). Git writes no blank line after its request and closes the pipe, so
/// the end of input ends a request as a blank line does.
///
/// ```swift
/// let request = try GitCredentialRequest(parsing: Array("protocol=https\nhost=git.example.com\n\n".utf8))
/// try request.binding()  // https://git.example.com
/// ```
struct GitCredentialRequest: Sendable, Equatable {
    /// The longest request read: 64 KiB. Git allows a line up to 65535 bytes with its newline; its requests are a
    /// few hundred bytes (the `wwwauth[]` headers being the longest part).
    static let maximumLength = 65_536

    /// `protocol`: the URL's scheme, `https` or `http` for the remotes a profile serves.
    var protocolName: String?
    /// `host`: the remote's host, with `:port` when the URL gave one (`git.example.com:8443`).
    var host: String?
    /// `path`: the repository's path, without the leading `/`; git sends it only with `credential.useHttpPath`.
    var path: String?
    /// `username`: the user name git already has (from the URL, its configuration or an earlier helper).
    var username: String?
    /// `password`: in `store` and `erase`, the one git used (for `erase`: the one the server refused).
    var password: String?
    /// `capability[]`: what git understands beyond user name and password (`authtype`, `state`; git 2.46+).
    var capabilities: [String] = []
    /// `wwwauth[]`: the `WWW-Authenticate` headers of the server's 401 answer (git 2.41+).
    var wwwAuthenticate: [String] = []

    /// An empty request.
    init() {}

    /// Parses a request: the lines up to the first blank line, or all of `bytes`.
    /// - Throws: ``CredentialInputError`` for a NUL byte, a line without `=`, or more than ``maximumLength`` bytes.
    init(parsing bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumLength else {
            throw CredentialInputError.tooLong("the request", limit: Self.maximumLength)
        }
        guard !bytes.contains(0) else { throw CredentialInputError.nulByte("the request") }
        var number = 0
        for whole in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let line = whole.last == UInt8(ascii: "\r") ? whole.dropLast() : whole
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw CredentialInputError.notKeyValue(line: number)
            }
            // Bytes that are not UTF-8 become U+FFFD: such a host, path or password matches no binding and no token.
            set(
                String(decoding: line[..<equals], as: UTF8.self),
                String(decoding: line[line.index(after: equals)...], as: UTF8.self))
        }
    }

    /// Records one attribute; unknown keys are dropped.
    private mutating func set(_ key: String, _ value: String) {
        switch key {
        case "protocol": protocolName = value
        case "host": host = value
        case "path": path = value
        case "username": username = value
        case "password": password = value
        case "capability[]": Self.append(value, to: &capabilities)
        case "wwwauth[]": Self.append(value, to: &wwwAuthenticate)
        default: break
        }
    }

    /// A list attribute: a value is added; an empty value clears the list.
    private static func append(_ value: String, to list: inout [String]) {
        if value.isEmpty { list.removeAll() } else { list.append(value) }
    }

    /// Whether `bytes` hold a whole request: a blank line (`\n` or `\r\n`) at the start of a line. The reader stops
    /// there, because git may keep the pipe open after its request.
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        hasBlankLine(bytes, from: 0)
    }

    /// Whether a blank line starts at `start` or after it.
    private static func hasBlankLine(_ bytes: [UInt8], from start: Int) -> Bool {
        let newline = UInt8(ascii: "\n")
        var atLineStart = start == 0 || bytes[start - 1] == newline
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            if atLineStart {
                if byte == newline { return true }
                if byte == UInt8(ascii: "\r"), index + 1 < bytes.endIndex, bytes[index + 1] == newline { return true }
            }
            atLineStart = byte == newline
            index += 1
        }
        return false
    }

    /// ``isComplete(_:)`` for a reader that calls it on a growing buffer: each call looks only at the bytes added
    /// since the last (and the two before them, where a blank line may have begun), so a writer that sends one byte
    /// at a time costs linear time, not quadratic.
    static func completeness() -> @Sendable ([UInt8]) -> Bool {
        let scanned = Locked(0)
        return { bytes in
            scanned.withLock { position in
                let start = min(max(0, position - 2), bytes.count)
                position = bytes.count
                return hasBlankLine(bytes, from: start)
            }
        }
    }

    /// The request the fast lane parsed (``CommandPlan/request(as:)``), else one read from the context's standard
    /// input, up to its blank line or the end of input (or from the input the lane read:
    /// ``CLIContext/readInput(limit:until:)``).
    /// - Throws: ``CredentialInputError`` for input that is not a request, as the lane's parse threw it or as this
    ///   one does; read errors.
    static func read(from context: CLIContext) async throws -> GitCredentialRequest {
        if let parsed = try context.plan?.request(as: GitCredentialRequest.self) { return parsed }
        return try request(from: try await context.readInput(limit: maximumLength, until: completeness()))
    }

    /// The request in `read`, a read of at most ``maximumLength`` bytes up to ``completeness()``: the one step from
    /// input to request on both paths.
    /// - Throws: ``CredentialInputError`` for input that is too long or not a request.
    static func request(from read: StandardInput.Read) throws -> GitCredentialRequest {
        guard read.ending != .tooLong else { throw CredentialInputError.tooLong("the request", limit: maximumLength) }
        return try GitCredentialRequest(parsing: read.bytes)
    }

    /// The URL git asks about, as a binding to match profiles with; nil when there is none to serve: no host, or a
    /// protocol other than `https` and `http` (git also asks about `cert`, `smtp`, …).
    /// - Throws: ``CredentialInputError`` when the host or path make no URL.
    func binding() throws -> URLBinding? {
        guard let scheme = protocolName, scheme == "https" || scheme == "http", let host, !host.isEmpty else {
            return nil
        }
        // git sends the host alone; one with a path, query or fragment in it would match another binding.
        guard !host.contains(where: { "/?#".contains($0) }) else {
            throw CredentialInputError.invalidServerURL("the host git sent is not a host name with an optional port")
        }
        do {
            return try URLBinding(scheme: scheme, host: host, path: path)
        } catch let error as DeviceLoginError {
            throw CredentialInputError.invalidServerURL("the host and path git sent make no URL: " + error.message)
        }
    }

    /// The answer git reads: `key=value` lines in the order given.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/invalidResponse`` when a value holds a
    ///   control character: a newline would add an attribute of its own, so nothing is written. The error names the
    ///   key, never the value.
    static func encode(_ attributes: [(key: String, value: String)]) throws -> String {
        var text = ""
        for (key, value) in attributes {
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw DeviceLoginError(
                    .invalidResponse,
                    "the \(key) holds a control character, which git's credential protocol cannot carry")
            }
            text += key + "=" + value + "\n"
        }
        return text
    }
}
