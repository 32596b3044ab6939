import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the jobs of the tasks that prefer it on one thread of its own, in the order they arrive.
///
/// A sign-in waits most of its life: a poll every few seconds, each a handful of short jobs. On Swift's default
/// executor each burst wakes libdispatch's worker pool, whose threads idle out after five seconds — the default
/// polling interval — so nearly every poll made threads anew, and the pool's monitor woke every second of the wait
/// (issue 19: 53 threads and about half the CPU of a one-minute login). One waiting thread costs neither: it sleeps
/// on a condition until a job arrives.
///
/// Tasks opt in with `Task(executorPreference:)` or `withTaskExecutorPreference(_:operation:)` (SE-0417); their
/// child tasks follow, and so do the default actors they call. Work that blocks must still go to a thread of its
/// own (``DedicatedThread``): here it would stall every job behind it.
final class SerialThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Every access to `jobs` holds `mutex`: that is what makes the `@unchecked Sendable` true. The mutex and the
    // condition live at stable heap addresses (a pthread mutex or condition must never move). The executor is
    // never freed once its thread runs: the thread holds it for the life of the process.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [UnownedJob] = []
    private var started = false

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    /// Starts the executor's thread.
    /// - Returns: Whether it runs; when not, no task may prefer this executor (its jobs would never run).
    func start() -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if started { return true }
        started = DedicatedThread.start { [self] in runJobs() }
        return started
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_mutex_unlock(mutex)
        // Signalled after the unlock: signalled under it, the woken thread ran at once into the mutex still held
        // here, slept on it and was woken again by the unlock (issue 19: a context switch and three futex calls more
        // on each poll's two hand-overs, from the sleep queue's thread and from the HTTP worker's). The thread checks
        // `jobs` under the mutex before it waits, so no job is missed; the executor is never freed, so the condition
        // outlives the call.
        pthread_cond_signal(condition)
    }

    private func runJobs() {
        var batch: [UnownedJob] = []
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(condition, mutex) }
            swap(&batch, &jobs)
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
