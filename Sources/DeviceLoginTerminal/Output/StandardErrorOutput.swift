#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor, standard error by default, with `write(2)`: unbuffered, so the prompt and each
/// redraw of the status line appear at once.
///
/// Retries short writes and `EINTR`; gives up silently on any other error (a closed pipe, a full disk), as there is
/// nowhere left to report it. A process that writes to a pipe should ignore `SIGPIPE` so a closed reader does not
/// end it.
///
/// ```swift
/// let presenter = LivePresenter(capabilities: .detect(), output: StandardErrorOutput())
/// ```
public struct StandardErrorOutput: TerminalOutput {
    /// The file descriptor written to.
    public let fileDescriptor: Int32

    /// Creates an output.
    ///
    /// - Parameter fileDescriptor: The descriptor to write to; 2 (standard error) by default.
    public init(fileDescriptor: Int32 = 2) {
        self.fileDescriptor = fileDescriptor
    }

    /// Writes all of `text`.
    ///
    /// - Parameter text: The text to write.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = writeToDescriptor(fileDescriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// `write(2)`, under a name that the method ``StandardErrorOutput/write(_:)`` does not hide.
private func writeToDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
