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

    /// A new condition variable whose timed waits are measured on the monotonic clock, for
    /// ``wait(_:_:for:)``; never freed here (the sleep queue and the executor that use it live as long as the process).
    package static func makeMonotonicCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Darwin)
        pthread_cond_init(condition, nil)
        #else
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        #endif
        return condition
    }

    /// Waits on `condition` for at most `delay`, with `mutex` held (as `pthread_cond_wait`); `condition` from
    /// ``makeMonotonicCondition()``. May return early (a signal, or spuriously): the caller checks its state again.
    package static func wait(
        _ condition: UnsafeMutablePointer<pthread_cond_t>, _ mutex: UnsafeMutablePointer<pthread_mutex_t>,
        for delay: Duration
    ) {
        var time = timespec()
        #if canImport(Darwin)
        let (seconds, attoseconds) = delay.components
        time.tv_sec = Int(seconds)
        time.tv_nsec = Int(attoseconds / 1_000_000_000)
        pthread_cond_timedwait_relative_np(condition, mutex, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC, &time)
        let (seconds, attoseconds) = delay.components
        var nanoseconds = Int(time.tv_nsec) + Int(attoseconds / 1_000_000_000)
        time.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        time.tv_nsec = nanoseconds
        pthread_cond_timedwait(condition, mutex, &time)
        #endif
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
