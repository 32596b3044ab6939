#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DeviceLogin

/// Where the CLI writes text: standard output, standard error, or a buffer in tests.
struct TextSink: Sendable {
    /// Receives the text as it is (no newline added).
    let writer: @Sendable (String) -> Void

    /// Writes the text as it is (no newline added).
    func write(_ text: String) { writer(text) }

    /// Writes the text followed by a newline.
    func line(_ text: String = "") { write(text + "\n") }

    /// A sink over a file descriptor, writing every byte (retrying on partial writes and EINTR).
    static func fileDescriptor(_ descriptor: Int32) -> TextSink {
        TextSink(writer: { text in
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
                    if errno == EINTR { continue }
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        })
    }

    /// A sink that collects what is written, for tests.
    static func buffer() -> (sink: TextSink, contents: @Sendable () -> String) {
        let storage = Locked("")
        let sink = TextSink(writer: { text in storage.withLock { $0 += text } })
        return (sink, { storage.withLock { $0 } })
    }
}
