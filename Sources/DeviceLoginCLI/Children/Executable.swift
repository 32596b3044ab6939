#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import MachO // _NSGetExecutablePath (<mach-o/dyld.h>)
#endif

/// The running program as a file: where it is, and replacing it with another (for ``DemoLauncher``).
enum Executable {
    /// The absolute path of the running executable with symbolic links resolved, or nil when it cannot be found:
    /// `/proc/self/exe` on Linux, `_NSGetExecutablePath` on macOS.
    static func currentPath() -> String? {
        #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress.map { readlink("/proc/self/exe", $0, bytes.count - 1) } ?? -1
        }
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        guard let resolved = realpath(buffer, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
        #else
        return nil
        #endif
    }

    /// Replaces the process with the program at `path` (`execv`; `execvp` when `searchingPATH`, for a bare name),
    /// `arguments` being its `argv`.
    /// - Returns: Only when that failed: the `errno` of the failure.
    static func replaceProcess(path: String, arguments: [String], searchingPATH: Bool = false) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // The command runs on a thread of the cooperative pool, where libdispatch blocks every asynchronous
        // signal, and execv keeps the calling thread's mask: the new program would start with SIGINT and SIGTERM
        // blocked. It gets an empty mask instead. (Ignored signals stay ignored; it sets up its own handling.)
        var empty = sigset_t()
        var previous = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &previous)
        if searchingPATH { execvp(path, argv) } else { execv(path, argv) }
        let failure = errno
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return failure
    }
}
