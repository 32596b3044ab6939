#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This machine's name, for the prompt's "Only continue if you started this sign-in on NAME just now".
///
/// Read once where a prompt is made and handed to ``PromptRenderer`` and ``LivePresenter``, so a test states its
/// own name. The renderer sanitises it like any other text before it is shown.
public enum MachineName {
    /// The most bytes read: 255, POSIX's `_POSIX_HOST_NAME_MAX` and more than Linux's 64.
    static let maximumLength = 255

    /// Names that say nothing about which machine this is: Linux's name for an unset host name, and loopback names.
    static let uninformative: Set<String> = ["(none)", "localhost", "localhost.localdomain"]

    /// The host name from `gethostname(2)`, or nil when it cannot be read, is empty, or is an uninformative name
    /// such as `localhost` (the prompt then says "on this computer").
    public static func current() -> String? {
        var buffer = [CChar](repeating: 0, count: maximumLength + 1)
        // The last byte stays NUL: gethostname need not terminate a name it truncated.
        guard gethostname(&buffer, maximumLength) == 0 else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return informative(String(decoding: bytes, as: UTF8.self))
    }

    /// `name`, unless it is empty or names no machine in particular.
    static func informative(_ name: String) -> String? {
        name.isEmpty || uninformative.contains(name.lowercased()) ? nil : name
    }
}
