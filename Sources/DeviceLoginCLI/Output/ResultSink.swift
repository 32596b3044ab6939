import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes its result: standard output, or a buffer in tests.
///
/// Unlike ``TextSink`` (standard error, best effort), every write says whether it arrived. A token, JSON object or
/// report that could not be written whole — `device-login token > /dev/full`, a closed standard output — is a
/// failure the command reports (``ExitCode/ioError``, 74), never a silent exit 0. A pipe whose reader is gone
/// (SIGPIPE is ignored, so the write fails with EPIPE: `device-login status | head -3`) is no failure worth a
/// message: the reader has all it wanted, and the process ends as `git log | head` does, by SIGPIPE
/// (``WriteError/readerIsGone``, ``ExitCode/readerGone``).
struct ResultSink: Sendable {
    /// Why a result could not be written.
    struct WriteError: Error, Equatable {
        /// The `errno` of the failed write.
        let code: Int32

        /// What went wrong, for people: `could not write the result to standard output: Broken pipe`.
        var message: String { "could not write the result to standard output: " + reason }

        /// The system's words for the failure; for a closed descriptor (EBADF), `it is closed`.
        var reason: String { code == EBADF ? "it is closed" : String(cString: strerror(code)) }

        /// Whether the reader of a pipe closed it early (EPIPE): no error worth a message. A full device (ENOSPC)
        /// or a closed descriptor (EBADF) is one.
        var readerIsGone: Bool { code == EPIPE }
    }

    /// Receives the text as it is (no newline added); throws when it was not written whole.
    let writer: @Sendable (String) throws(WriteError) -> Void

    /// Writes the text as it is (no newline added).
    /// - Throws: ``WriteError`` when it was not written whole.
    func write(_ text: String) throws(WriteError) { try writer(text) }

    /// Writes the text followed by a newline, in one write.
    /// - Throws: ``WriteError`` when it was not written whole.
    func line(_ text: String = "") throws(WriteError) { try write(text + "\n") }

    /// A sink over a file descriptor, writing every byte (``TextSink/writeAll(_:to:)``).
    static func fileDescriptor(_ descriptor: Int32) -> ResultSink {
        ResultSink(writer: { text throws(WriteError) in
            if let code = TextSink.writeAll(text, to: descriptor) { throw WriteError(code: code) }
        })
    }

    /// A sink where every write fails with `code`: standard output when the process started without one, or a
    /// failing device in tests.
    static func failing(_ code: Int32) -> ResultSink {
        ResultSink(writer: { _ throws(WriteError) in throw WriteError(code: code) })
    }

    /// A sink that collects what is written, for tests.
    static func buffer() -> (sink: ResultSink, contents: @Sendable () -> String) {
        let storage = Locked("")
        let sink = ResultSink(writer: { text in storage.withLock { $0 += text } })
        return (sink, { storage.withLock { $0 } })
    }
}
