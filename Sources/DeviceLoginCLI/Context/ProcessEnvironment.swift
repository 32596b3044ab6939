#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own environment, read without `ProcessInfo` (which costs more start-up time than the token fast
/// path may spend, issue 9): one variable as `getenv` reads it, or the whole of `environ`.
enum ProcessEnvironment {
    /// One environment variable, as `getenv` reads it.
    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The process's environment, read from `environ`: as `getenv` (and so libcurl) reads it, the first of two
    /// entries with the same name wins, and an entry without `=` is ignored.
    static func whole() -> [String: String] {
        var environment: [String: String] = [:]
        #if canImport(Darwin)
        let table = _NSGetEnviron()?.pointee
        #else
        let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        guard var entry = table else { return environment }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(text[..<equals])
                if environment[name] == nil { environment[name] = String(text[text.utf8.index(after: equals)...]) }
            }
            entry += 1
        }
        return environment
    }
}
