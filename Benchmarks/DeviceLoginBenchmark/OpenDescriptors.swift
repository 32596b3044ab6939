#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file descriptors this process holds: counted in `/proc/self/fd` while the curl load runs (each connection is
/// two: the client's end and the loopback server's), and the limit on them raised for it.
enum OpenDescriptors {
    /// How often ``peak()`` counts.
    static let period = Duration.milliseconds(50)

    /// How many descriptors are open now, or nil where `/proc/self/fd` cannot be read.
    static func count() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var entries = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { entries += 1 }
        }
        // Less the descriptor opendir itself holds while counting.
        return max(0, entries - 1)
    }

    /// Counts every ``period`` until the task is cancelled, and returns the most seen; nil where nothing could be
    /// counted.
    static func peak() async -> Int? {
        var most: Int?
        while !Task.isCancelled {
            if let now = count() { most = max(most ?? now, now) }
            try? await Task.sleep(for: period)
        }
        return most
    }

    /// Raises this process's soft limit on open descriptors (`RLIMIT_NOFILE`) to its hard limit: 1,000 flows over
    /// real connections need more than the usual 1,024. The benchmark's business, not the library's.
    /// - Returns: The soft limit now in force, or nil where it cannot be read.
    @discardableResult
    static func raiseLimit() -> Int? {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
