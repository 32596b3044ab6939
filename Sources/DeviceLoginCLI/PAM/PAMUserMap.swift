/// The mapping file of `username_map` (docs/ssh.md): which local users each value of the username claim may sign in
/// as, one `CLAIM-VALUE = USER` a line (`alice@example.com = alice`); a value may be given on several lines, for
/// several users. `#` comments and blank lines are ignored. Without a mapping file the claim must equal the user.
struct PAMUserMap: Sendable, Equatable {
    /// The local users each claim value may sign in as.
    var users: [String: Set<String>]

    /// The largest mapping file read, in bytes.
    static let maximumFileBytes = 256 * 1024
    /// The most lines that map.
    static let maximumEntries = 10_000

    /// Whether `value` of the username claim may sign in as `user`.
    func allows(_ value: String, as user: String) -> Bool {
        users[value]?.contains(user) == true
    }

    /// Reads a mapping from its text.
    /// - Throws: ``PAMConfiguration/Problem`` for a malformed line, one with a control character, or too many.
    static func parse(_ text: String) throws(PAMConfiguration.Problem) -> PAMUserMap {
        guard text.utf8.count <= maximumFileBytes else {
            throw PAMConfiguration.Problem(line: 0, reason: "the mapping file is larger than \(maximumFileBytes) bytes")
        }
        var users: [String: Set<String>] = [:]
        var count = 0
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            func refuse(_ reason: String) -> PAMConfiguration.Problem {
                PAMConfiguration.Problem(line: index + 1, reason: reason)
            }
            guard line.utf8.count <= PAMConfiguration.maximumLineBytes else {
                throw refuse("the line is longer than \(PAMConfiguration.maximumLineBytes) bytes")
            }
            guard line.unicodeScalars.allSatisfy({ !$0.isUnsafeToShow || $0 == "\t" }) else {
                throw refuse("the line holds a control or invisible character")
            }
            guard let equals = line.lastIndex(of: "=") else { throw refuse("expected `CLAIM-VALUE = USER`") }
            let value = line[..<equals].trimmed()
            let user = line[line.index(after: equals)...].trimmed()
            guard !value.isEmpty, !user.isEmpty, !user.contains(where: \.isWhitespace) else {
                throw refuse("expected `CLAIM-VALUE = USER`, a user name without spaces")
            }
            count += 1
            guard count <= maximumEntries else { throw refuse("more than \(maximumEntries) mappings") }
            users[value, default: []].insert(user)
        }
        return PAMUserMap(users: users)
    }
}
