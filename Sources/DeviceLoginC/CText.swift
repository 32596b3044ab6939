import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Strings across the C boundary: reading what a caller passes (never trusting its length or encoding) and handing
/// back strings the caller owns and frees with `dl_string_free`.
enum CText {
    /// The longest NUL-terminated string read, in bytes; a longer one is refused, not read past.
    static let maximumBytes = 64 * 1024
    /// The longest message handed back, in Unicode scalars.
    static let maximumMessageLength = 1024

    /// The bytes at `pointer` (`length` of them), checked against `limit` before any is read.
    /// - Throws: ``EmbeddedFailure/usage(_:)`` for a NULL pointer or too many bytes.
    static func bytes(_ pointer: UnsafePointer<CChar>?, length: Int, limit: Int, name: String)
        throws(EmbeddedFailure) -> [UInt8]
    {
        guard let pointer else { throw .usage("\(name) is NULL") }
        guard length >= 0, length <= limit else { throw .usage("\(name) is longer than \(limit) bytes") }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// A caller's NUL-terminated UTF-8 string.
    /// - Throws: ``EmbeddedFailure/usage(_:)`` for NULL, no NUL within ``maximumBytes``, or invalid UTF-8.
    static func string(_ pointer: UnsafePointer<CChar>?, name: String) throws(EmbeddedFailure) -> String {
        guard let pointer else { throw .usage("\(name) is NULL") }
        let length = strnlen(pointer, maximumBytes + 1)
        let bytes = try bytes(pointer, length: length, limit: maximumBytes, name: name)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .usage("\(name) is not UTF-8") }
        return text
    }

    /// A copy of `text` that lives as long as the process (for `dl_version`).
    static func permanent(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(text)!)
    }

    /// Hands `text` to the caller: a copy from `malloc`, stored at `out`.
    /// - Throws: ``EmbeddedFailure`` when memory runs out.
    static func give(_ text: String, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) throws(EmbeddedFailure)
    {
        guard let copy = strdup(text) else {
            throw EmbeddedFailure(.failure, "out of memory")
        }
        out.pointee = copy
    }

    /// Stores the message of `failure` at `out`, when the caller asked for one, sanitised and with every secret the
    /// process knows replaced (``KnownSecrets``).
    static func report(_ failure: EmbeddedFailure, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard let out else { return }
        let message = KnownSecrets.scrub(
            Sanitizer.sanitize(KnownSecrets.scrub(failure.message), maxLength: maximumMessageLength))
        out.pointee = strdup(message)
    }

    /// Frees a string handed out by ``give(_:to:)`` or ``report(_:to:)``, wiping it first: it may hold a token.
    static func free(_ pointer: UnsafeMutablePointer<CChar>?) {
        guard let pointer else { return }
        explicit_bzero(pointer, strlen(pointer))
        Glibc.free(pointer)
    }
}
