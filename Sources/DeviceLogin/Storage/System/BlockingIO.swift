import Dispatch

/// Runs blocking system calls (open, read, fsync, rename) off Swift's cooperative thread pool.
///
/// The cooperative pool has as many threads as cores; an `fsync` on a slow disk must not hold one of them. The
/// work goes to a Dispatch queue whose threads are separate from the pool, and the caller suspends meanwhile.
/// The calls are short and leave the file system consistent, so they are not interrupted by cancellation.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "device-login.blocking-io", attributes: .concurrent)

    /// Runs `body` on the blocking-I/O queue and returns its result.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
