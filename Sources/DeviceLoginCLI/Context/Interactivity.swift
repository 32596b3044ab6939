/// Whether a person may be there to answer a device-flow prompt. The integration helpers start a sign-in only when
/// one may (today only `kubectl-credential`, and only when kubectl allows it); otherwise they fail at once with
/// ``SignInNeeded``.
enum Interactivity {
    /// True when standard input and standard error are both terminals and `CI` is not set (CI services set it;
    /// a job has no one to approve a code).
    static func personCanAnswer(_ context: CLIContext) -> Bool {
        context.stdinIsTerminal && context.terminal.isTerminal && context.environment["CI"] == nil
    }
}
