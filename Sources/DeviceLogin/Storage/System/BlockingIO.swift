#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking system calls (open, read, fsync, rename, a Secret Service call) off Swift's cooperative thread pool.
///
/// The cooperative pool has as many threads as cores; an `fsync` on a slow disk must not hold one of them. The
/// work goes to a few threads of this type's own, started as they are needed and kept, and the caller suspends
/// meanwhile. The calls are short and leave the file system consistent, so they are not interrupted by cancellation.
///
/// Not a Dispatch queue: its first use started libdispatch's worker-pool monitor, a timer that woke the process
/// every second for the rest of its life, so an idle `device-login agent` woke once a second for nothing (issue 19).
/// These threads sleep on a condition until work comes.
enum BlockingIO {
    /// Runs `body` on a blocking-I/O thread and returns its result.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            BlockingThreads.shared.submit {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

/// The threads ``BlockingIO`` runs its work on: at most ``maximumThreads``, each started when work arrives and no
/// thread is idle, and kept, asleep, for the next. No job waits for another (the stores take their locks without
/// waiting), so more jobs than threads only queue.
final class BlockingThreads: @unchecked Sendable {
    static let shared = BlockingThreads()

    /// The most threads: a few blocking calls at once, as many sign-ins of one process may save at the same moment.
    static let maximumThreads = 4

    private struct State {
        /// Jobs not yet taken, oldest first from `head`.
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        var idle = 0
    }

    // Every access to `state` holds `mutex`: that is what makes the `@unchecked Sendable` true. Both live at stable
    // heap addresses (a pthread mutex or condition must never move).
    private let mutex = PThreadObjects.makeMutex()
    private let condition = PThreadObjects.makeCondition()
    private var state = State()

    /// Queues `job`, starting a thread when none is idle and fewer than ``maximumThreads`` run. Where no thread
    /// can be started and none runs, the job runs on the calling thread: late, but never lost.
    func submit(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        state.jobs.append(job)
        let start = state.idle == 0 && state.threads < Self.maximumThreads
        if start { state.threads += 1 }
        let wake = state.idle > 0
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
        guard start, !DedicatedThread.start({ [self] in work() }) else { return }
        pthread_mutex_lock(mutex)
        state.threads -= 1
        let orphaned = state.threads == 0
        pthread_mutex_unlock(mutex)
        if orphaned { drain() }
    }

    /// How many threads run now (for tests).
    var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return state.threads
    }

    /// A thread's life: take the oldest job, run it without the mutex, sleep when there is none.
    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            guard let job = takeLocked() else {
                state.idle += 1
                pthread_cond_wait(condition, mutex)
                state.idle -= 1
                continue
            }
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
        }
    }

    /// Runs every queued job on the calling thread (when no thread could be started).
    private func drain() {
        while true {
            pthread_mutex_lock(mutex)
            let job = takeLocked()
            pthread_mutex_unlock(mutex)
            guard let job else { return }
            job()
        }
    }

    /// The oldest queued job, removed; nil when none. The mutex is held.
    private func takeLocked() -> (@Sendable () -> Void)? {
        guard state.head < state.jobs.count else { return nil }
        let job = state.jobs[state.head]
        state.head += 1
        if state.head == state.jobs.count {
            state.jobs.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return job
    }
}
