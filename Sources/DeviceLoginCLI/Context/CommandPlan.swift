import DeviceLogin

/// What the fast lane prepared for a command before it found that only the full path can answer: the options as
/// parsed, what it read of standard input, the request it parsed from the environment, the profile record it chose. The full path takes each part it finds here
/// instead of doing that step again (issue 18, "a miss hands the prepared plan to the async path"): it parses no
/// option twice, reads no input twice, and reads no record the lane has read. A part the lane did not reach is nil,
/// and the full path does that step itself, as it does for a process the lane never looked at.
///
/// Only the source of the token differs between the paths: the stored token on the lane, ``TokenState`` on the full
/// path. Every failure the lane met is kept as it was (an option's ``UsageError``, a failed read), for the full path
/// to report as its own.
struct CommandPlan: Sendable {
    /// The command the plan is for (``CommandSpec/name``); no other command takes it.
    let command: String
    /// The command's options, parsed with the process's environment, or why they could not be.
    let options: Result<ParsedOptions, any Error>
    /// What the lane read of standard input (git's request, Docker's server URL), or why reading failed; nil when
    /// it read nothing.
    var input: Result<StandardInput.Read, any Error>?
    /// The request the command's lane answer parsed from the environment (kubectl's `KUBERNETES_EXEC_INFO`), or why
    /// it could not be parsed; nil when it parsed none. Of the command's own type, which lives with the command in a
    /// room above this one: the command takes it back with ``request(as:)``.
    var request: Result<any Sendable, any Error>?
    /// The record of the profile the command answers for: the one `--profile` names, or the one ``ProfileChoice``
    /// chose for the URL asked about; nil when the lane did not get that far, or chose none.
    var record: ProfileRecord?

    /// The request the lane parsed, as the command's type; nil when the lane parsed none (the command parses it
    /// itself) or one of another type.
    /// - Throws: What the lane's parse threw, for the full path to report as its own.
    func request<Request: Sendable>(as type: Request.Type) throws -> Request? {
        try request?.get() as? Request
    }

    /// The record of profile `name`, when it is the one the lane read.
    func record(named name: String) -> ProfileRecord? {
        record?.name == name ? record : nil
    }
}
