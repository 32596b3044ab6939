#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sleeps on `ContinuousClock` for every flow of the process, woken by one dedicated thread.
///
/// `Task.sleep` makes a task of its own for each wake-up (an object and a 1 kB allocator slab) and a timer in
/// libdispatch, for every poll of every flow: device-login-bench measured 1 kB per waiting flow for it. Here a sleeper
/// costs an entry in a heap of deadlines and a slot in a table (about 50 bytes), and its task's own continuation.
/// The thread wakes at the earliest deadline and resumes every sleeper due then; a sleeper is never woken early
/// (RFC 8628 §3.4: "no more often than" the interval), and at most ``coalescing`` late, so that sleepers due
/// together share one wake-up. Cancelling a sleeping task resumes it at once with `CancellationError`.
///
/// Where the thread cannot be started, ``sleep(until:)`` falls back to `ContinuousClock`'s own sleep.
package final class SleepQueue: @unchecked Sendable {
    /// The one queue of the process; its thread starts with the first sleep.
    package static let shared = SleepQueue()

    /// How late a wake-up may be so that sleepers due within it share one.
    package static let coalescing = Duration.milliseconds(1)

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var id: UInt64
    }

    private enum Sleeper {
        /// Between ``sleep(until:)``'s start and the continuation's arrival.
        case reserved
        /// Cancelled before the continuation arrived.
        case cancelled
        case waiting(UnsafeContinuation<Void, any Error>)
    }

    private struct State {
        var heap: [Entry] = []
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        /// nil until the first sleep; then whether the thread runs.
        var threadRunning: Bool?
    }

    // Every access to `state` holds `mutex`: that is what makes the `@unchecked Sendable` true. Both live at stable
    // heap addresses (a pthread mutex or condition must never move).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state = State()

    private init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
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
    }

    // The shared queue lives as long as the process: no deinit.

    /// Sleeps until `deadline` on `ContinuousClock`.
    /// - Throws: `CancellationError` when the task is cancelled before or while it sleeps.
    package func sleep(until deadline: ContinuousClock.Instant) async throws {
        guard let id = reserve() else {
            try await ContinuousClock().sleep(until: deadline, tolerance: nil)
            return
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                wait(id, until: deadline, continuation)
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func locked<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// A new sleeper's id, the thread started if need be; nil when the thread cannot run.
    private func reserve() -> UInt64? {
        let reserved: (id: UInt64, start: Bool)? = locked { state in
            if state.threadRunning == false { return nil }
            state.nextID &+= 1
            state.sleepers[state.nextID] = .reserved
            let start = state.threadRunning == nil
            state.threadRunning = true
            return (state.nextID, start)
        }
        guard let reserved else { return nil }
        if reserved.start, !DedicatedThread.start({ [self] in run() }) {
            locked { state in
                state.threadRunning = false
                state.sleepers[reserved.id] = nil
            }
            return nil
        }
        return reserved.id
    }

    private func wait(
        _ id: UInt64, until deadline: ContinuousClock.Instant, _ continuation: UnsafeContinuation<Void, any Error>
    ) {
        let (cancelled, earliest): (Bool, Bool) = locked { state in
            if case .cancelled = state.sleepers[id] {
                state.sleepers[id] = nil
                return (true, false)
            }
            state.sleepers[id] = .waiting(continuation)
            state.heap.append(Entry(deadline: deadline, id: id))
            return (false, Self.siftUp(&state.heap, from: state.heap.count - 1) == 0)
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        // A new earliest deadline wakes the thread to wait for it instead. Signalled after the unlock, so that the
        // thread does not wake into the mutex still held here and sleep on it once more (issue 19); it reads the
        // heap under the mutex before each wait, so the signal is never missed, and the queue is never freed.
        if earliest { pthread_cond_signal(condition) }
    }

    private func cancel(_ id: UInt64) {
        let continuation: UnsafeContinuation<Void, any Error>? = locked { state in
            switch state.sleepers[id] {
            case .reserved:
                state.sleepers[id] = .cancelled
                return nil
            case .waiting(let continuation):
                // Its heap entry stays until its deadline, and is skipped then.
                state.sleepers[id] = nil
                return continuation
            case .cancelled, nil:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// The thread: waits for the earliest deadline and resumes the sleepers due by then.
    private func run() {
        var due: [UnsafeContinuation<Void, any Error>] = []
        pthread_mutex_lock(mutex)
        while true {
            guard let first = state.heap.first else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let now = ContinuousClock.now
            guard first.deadline <= now else {
                waitLocked(for: now.duration(to: first.deadline) + Self.coalescing)
                continue
            }
            while let top = state.heap.first, top.deadline <= now {
                Self.removeFirst(&state.heap)
                if case .waiting(let continuation) = state.sleepers.removeValue(forKey: top.id) {
                    due.append(continuation)
                }
            }
            pthread_mutex_unlock(mutex)
            for continuation in due { continuation.resume() }
            due.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
        }
    }

    /// Waits on the condition for at most `delay`, the mutex held.
    private func waitLocked(for delay: Duration) {
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

    /// Moves the entry at `index` up to its place in the min-heap; returns where it landed.
    @discardableResult
    private static func siftUp(_ heap: inout [Entry], from index: Int) -> Int {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return child
    }

    /// Removes the earliest entry of the min-heap.
    private static func removeFirst(_ heap: inout [Entry]) {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var child = left
            if left + 1 < heap.count, heap[left + 1].deadline < heap[left].deadline { child = left + 1 }
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
