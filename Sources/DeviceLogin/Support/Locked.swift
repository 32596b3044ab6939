#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a POSIX mutex, for the places that must be reached synchronously from any thread (task
/// cancellation handlers, signal handlers, the loopback listener's thread). `Synchronization.Mutex` needs macOS
/// 15; the package supports macOS 13. The mutex lives at a stable heap address (a `pthread_mutex_t` must never
/// move), and every access to `value` holds it: that is what makes the `@unchecked Sendable` true.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock around `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = PThreadObjects.makeMutex()
    }

    deinit {
        PThreadObjects.destroy(mutex)
    }

    /// Runs `body` with the value, holding the mutex. `body` must not suspend or call back into this lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
