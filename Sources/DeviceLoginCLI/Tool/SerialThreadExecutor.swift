import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the jobs of the tasks that prefer it on one thread of its own, in the order they arrive, and hosts the
/// process's other waits on that thread: the sleep queue's deadlines and, once the first request loads libcurl, the
/// HTTP loop (a ``LoopHost``).
///
/// A sign-in waits most of its life: a poll every few seconds, each a handful of short jobs. On Swift's default
/// executor each burst wakes libdispatch's worker pool, whose threads idle out after five seconds — the default
/// polling interval — so nearly every poll made threads anew, and the pool's monitor woke every second of the wait
/// (issue 19: 53 threads and about half the CPU of a one-minute login). One waiting thread costs neither: it sleeps
/// until a job arrives or a sleeper is due. With the sleeps and the HTTP loop hosted here too, a poll wakes this
/// thread at its deadline and sends the request and reads the answer on it: no hand-off between threads, where a
/// thread each for jobs, sleeps and HTTP made eight context switches a poll.
///
/// Tasks opt in with `Task(executorPreference:)` or `withTaskExecutorPreference(_:operation:)` (SE-0417); their
/// child tasks follow, and so do the default actors they call. Work that blocks must still go to a thread of its
/// own (``DedicatedThread``): here it would stall every job behind it, and every HTTP transfer.
final class SerialThreadExecutor: TaskExecutor, LoopHost, @unchecked Sendable {
    // Every access to `jobs`, `driver`, `interrupted` and `thread` holds `mutex`: that is what makes the
    // `@unchecked Sendable` true. The executor is never freed once its thread runs: the thread holds it for the
    // life of the process, so the mutex and the condition outlive every call.
    private let mutex = PThreadObjects.makeMutex()
    private let condition = PThreadObjects.makeMonotonicCondition()
    private var jobs: [UnownedJob] = []
    private var started = false
    /// The HTTP loop, once adopted: from then on the thread waits in it instead of on `condition`.
    private var driver: (any LoopDriver)?
    /// Set by ``interrupt()`` while the thread waits on `condition`; makes its next wait return at once.
    private var interrupted = false
    /// The executor's thread, once it runs.
    private var thread: pthread_t?
    private let sleeps: SleepQueue

    init(sleeps: SleepQueue = .shared) {
        self.sleeps = sleeps
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
        let own = isThread(pthread_self())
        let driver = driver
        pthread_mutex_unlock(mutex)
        // A job added on the thread itself is seen before it waits again. Another thread's wakes it, after the
        // unlock: signalled under it, the woken thread ran at once into the mutex still held here, slept on it and
        // was woken again by the unlock (issue 19). The thread checks `jobs` under the mutex before it waits on the
        // condition, and a wake-up of the HTTP loop is kept until its next wait, so no job is missed.
        if own { return }
        if let driver { driver.interrupt() } else { pthread_cond_signal(condition) }
    }

    var isCurrent: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return isThread(pthread_self())
    }

    func interrupt() {
        pthread_mutex_lock(mutex)
        let driver = driver
        if driver == nil { interrupted = true }
        pthread_mutex_unlock(mutex)
        if let driver { driver.interrupt() } else { pthread_cond_signal(condition) }
    }

    func adopt(_ driver: any LoopDriver) {
        pthread_mutex_lock(mutex)
        self.driver = driver
        pthread_mutex_unlock(mutex)
        // The thread may be waiting on the condition: it must come round to wait in the driver instead.
        pthread_cond_signal(condition)
    }

    /// Whether `other` is the executor's thread; the mutex held.
    private func isThread(_ other: pthread_t) -> Bool {
        guard let thread else { return false }
        return pthread_equal(thread, other) != 0
    }

    /// The thread: runs the jobs in order, resumes the sleepers due, moves the HTTP loop on, and waits for the
    /// next of these.
    private func runJobs() {
        var batch: [UnownedJob] = []
        pthread_mutex_lock(mutex)
        thread = pthread_self()
        pthread_mutex_unlock(mutex)
        while true {
            pthread_mutex_lock(mutex)
            swap(&batch, &jobs)
            let driver = driver
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
            // Sleepers due and transfers finished resume their tasks, whose jobs land in `jobs`.
            let untilNext = sleeps.resumeDue()
            let more = driver?.drive() ?? false
            pthread_mutex_lock(mutex)
            if more || !jobs.isEmpty || interrupted || (self.driver != nil && driver == nil) {
                interrupted = false
                pthread_mutex_unlock(mutex)
                continue
            }
            if let driver {
                pthread_mutex_unlock(mutex)
                driver.wait(milliseconds: untilNext?.waitMilliseconds ?? Int32.max)
            } else {
                if let untilNext {
                    PThreadObjects.wait(condition, mutex, for: untilNext)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
                interrupted = false
                pthread_mutex_unlock(mutex)
            }
        }
    }
}
