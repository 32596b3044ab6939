#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// POSIX mutexes and condition variables at stable heap addresses (a `pthread_mutex_t` or `pthread_cond_t` must
/// never move, so neither may live in a Swift property): made and unmade in one place for ``Locked`` and the C
/// library's hand-off queue.
package enum PThreadObjects {
    /// A new, initialised mutex; free it with `destroy(_:)`.
    package static func makeMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        return mutex
    }

    /// A new, initialised condition variable; free it with `destroy(_:)`.
    package static func makeCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
        return condition
    }

    /// Destroys and frees a mutex ``makeMutex()`` made; no thread may hold or wait for it.
    package static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Destroys and frees a condition variable ``makeCondition()`` made; no thread may wait on it.
    package static func destroy(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }
}
