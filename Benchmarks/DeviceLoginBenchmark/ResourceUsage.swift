#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What this process has used so far: CPU time (user and system, from `getrusage`) and memory (peak and current
/// resident set).
struct ResourceUsage: Sendable {
    /// User CPU time of every thread.
    var userTime: Duration
    /// System CPU time of every thread.
    var systemTime: Duration
    /// The peak resident set size in bytes: `ru_maxrss`, or `VmHWM` from `/proc/self/status` when larger.
    var peakResidentBytes: Int
    /// The resident set size now (`VmRSS`), in bytes; 0 where `/proc` is missing.
    var residentBytes: Int

    /// User plus system CPU time.
    var cpuTime: Duration { userTime + systemTime }

    /// The usage now.
    static func current() -> ResourceUsage {
        var usage = rusage()
        #if os(Linux)
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let maxRSS = Int(usage.ru_maxrss) * 1024 // kilobytes on Linux
        #else
        _ = getrusage(RUSAGE_SELF, &usage)
        let maxRSS = Int(usage.ru_maxrss) // bytes on Darwin
        #endif
        let status = ProcStatus.read()
        return ResourceUsage(
            userTime: duration(usage.ru_utime),
            systemTime: duration(usage.ru_stime),
            peakResidentBytes: max(maxRSS, status.highWaterBytes),
            residentBytes: status.residentBytes
        )
    }

    private static func duration(_ time: timeval) -> Duration {
        .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
    }
}

/// The two memory lines of `/proc/self/status` the benchmark reads.
struct ProcStatus: Sendable {
    /// `VmHWM`: the peak resident set, in bytes.
    var highWaterBytes = 0
    /// `VmRSS`: the resident set now, in bytes.
    var residentBytes = 0

    /// Reads `/proc/self/status`; zeros where it cannot be read.
    static func read() -> ProcStatus {
        var status = ProcStatus()
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/self/status")),
            data.count < 1 << 16
        else { return status }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("VmHWM:") { status.highWaterBytes = kilobytes(line) * 1024 }
            if line.hasPrefix("VmRSS:") { status.residentBytes = kilobytes(line) * 1024 }
        }
        return status
    }

    /// The number in a line such as `VmHWM:     12345 kB`.
    private static func kilobytes(_ line: Substring) -> Int {
        line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }
}
