/// Where a ``LivePresenter`` writes: standard error by default, a recorder in tests.
///
/// Writes are synchronous and whole: an implementation writes all of `text` before it returns, so that an escape
/// sequence is never split between two writers.
public protocol TerminalOutput: Sendable {
    /// Writes `text` as UTF-8.
    ///
    /// - Parameter text: The bytes to write; a failure to write is ignored (there is nowhere left to report it).
    func write(_ text: String)
}
