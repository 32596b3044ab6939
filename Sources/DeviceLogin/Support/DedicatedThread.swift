#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a dedicated thread for work that blocks: a libcurl transfer, the loopback listener's socket loop.
///
/// Swift's cooperative pool has as few threads as cores; a blocking `curl_multi_poll` or `poll(2)` there would
/// starve every other task. Each such piece of work gets a thread of its own, which ends when the work does.
/// A plain pthread rather than Foundation's `Thread`, so the package needs no more than FoundationEssentials.
package enum DedicatedThread {
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread.
    /// - Parameter body: The work; it owns everything it touches until it returns.
    /// - Returns: Whether the thread could be started (when not, `body` never runs).
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(
            &thread, &attributes,
            { context in
                guard let context else { return nil }
                Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
                return nil
            }, work)
        if status != 0 {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        return true
    }
}
