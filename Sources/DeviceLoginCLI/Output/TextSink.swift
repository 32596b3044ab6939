import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the CLI writes text for people: standard error, or a buffer in tests. Best effort: a failed write is
/// dropped, since there is nowhere left to report it. Results go to a ``ResultSink``, which says when they fail.
struct TextSink: Sendable {
    /// Receives the text as it is (no newline added).
    let writer: @Sendable (String) -> Void

    /// Writes the text as it is (no newline added).
    func write(_ text: String) { writer(text) }

    /// Writes the text followed by a newline.
    func line(_ text: String = "") { write(text + "\n") }

    /// A sink over a file descriptor, writing every byte (``writeAll(_:to:)``); failures are dropped.
    static func fileDescriptor(_ descriptor: Int32) -> TextSink {
        TextSink(writer: { text in _ = writeAll(text, to: descriptor) })
    }

    /// Writes every byte of `text` to `descriptor`: again after a partial write or EINTR, and after waiting for
    /// room when the descriptor is non-blocking (EAGAIN, a descriptor a parent process left in that mode).
    /// - Returns: nil when every byte was written, else the `errno` of the write that failed.
    static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.write(descriptor, raw.baseAddress, raw.count)
                #else
                Darwin.write(descriptor, raw.baseAddress, raw.count)
                #endif
            }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&entry, 1, -1) >= 0 || errno == EINTR { continue }
                    return errno
                }
                return code
            }
            bytes = bytes.dropFirst(written)
        }
        return nil
    }

    /// A sink that collects what is written, for tests.
    static func buffer() -> (sink: TextSink, contents: @Sendable () -> String) {
        let storage = Locked("")
        let sink = TextSink(writer: { text in storage.withLock { $0 += text } })
        return (sink, { storage.withLock { $0 } })
    }
}
