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
/// In a process whose jobs run on a ``LoopHost`` (the CLI) there is no thread of its own: the host waits for the
/// earliest deadline itself and calls ``resumeDue()``, so a sleeper due wakes the thread that runs its task, once.
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
        /// nil until the first sleep; then whether the thread runs (or the host serves the queue).
        var threadRunning: Bool?
        /// The thread that waits for the deadlines instead of the queue's own, chosen at the first sleep.
        var host: (any LoopHost)?
    }

    // Every access to `state` holds `mutex`: that is what makes the `@unchecked Sendable` true. Both live at stable
    // heap addresses (a pthread mutex or condition must never move).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state = State()

    /// A queue of its own (``shared`` is the process's); never freed while its thread runs, which holds it.
    package init() {
        mutex = PThreadObjects.makeMutex()
        condition = PThreadObjects.makeMonotonicCondition()
    }

    // The shared queue lives as long as the process: no deinit.

    /// Makes `host` wait for this queue's deadlines, from the first sleep on, instead of a thread of its own; the
    /// host calls ``resumeDue()`` in every round. For a queue that has not slept yet (``shared`` takes
    /// ``ProcessExecutor/host`` by itself).
    package func serve(by host: any LoopHost) {
        locked { state in
            guard state.threadRunning == nil else { return }
            state.host = host
            state.threadRunning = true
        }
    }

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
            var start = state.threadRunning == nil
            if start, self === Self.shared, let host = ProcessExecutor.host {
                state.host = host
                start = false
            }
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
        let (cancelled, earliest, host): (Bool, Bool, (any LoopHost)?) = locked { state in
            if case .cancelled = state.sleepers[id] {
                state.sleepers[id] = nil
                return (true, false, nil)
            }
            state.sleepers[id] = .waiting(continuation)
            state.heap.append(Entry(deadline: deadline, id: id))
            return (false, Self.siftUp(&state.heap, from: state.heap.count - 1) == 0, state.host)
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        guard earliest else { return }
        // A new earliest deadline wakes the thread to wait for it instead. Signalled after the unlock, so that the
        // thread does not wake into the mutex still held here and sleep on it once more (issue 19); it reads the
        // heap under the mutex before each wait, so the signal is never missed, and the queue is never freed.
        // A host reads it before each wait too, so only a sleep begun on another thread needs to interrupt it.
        if let host {
            if !host.isCurrent { host.interrupt() }
        } else {
            pthread_cond_signal(condition)
        }
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

    /// For the ``LoopHost`` that serves the queue, on its thread: resumes the sleepers due now and returns how long
    /// to wait for the next (its deadline and ``coalescing``), nil when none sleeps or the queue has no host.
    package func resumeDue() -> Duration? {
        var due: [UnsafeContinuation<Void, any Error>] = []
        let next: Duration? = locked { state in
            guard state.host != nil, let first = state.heap.first else { return nil }
            let now = ContinuousClock.now
            guard first.deadline <= now else { return now.duration(to: first.deadline) + Self.coalescing }
            Self.takeDue(&state, at: now, into: &due)
            return state.heap.first.map { now.duration(to: $0.deadline) + Self.coalescing }
        }
        for continuation in due { continuation.resume() }
        return next
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
                PThreadObjects.wait(condition, mutex, for: now.duration(to: first.deadline) + Self.coalescing)
                continue
            }
            Self.takeDue(&state, at: now, into: &due)
            pthread_mutex_unlock(mutex)
            for continuation in due { continuation.resume() }
            due.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
        }
    }

    /// Takes out of the heap every entry due at `now`, and the continuations of those still waiting.
    private static func takeDue(
        _ state: inout State, at now: ContinuousClock.Instant, into due: inout [UnsafeContinuation<Void, any Error>]
    ) {
        while let top = state.heap.first, top.deadline <= now {
            removeFirst(&state.heap)
            if case .waiting(let continuation) = state.sleepers.removeValue(forKey: top.id) {
                due.append(continuation)
            }
        }
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
