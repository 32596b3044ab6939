#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one line to standard error, unbuffered.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes[written...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        guard result > 0 else { return }
        written += result
    }
}
