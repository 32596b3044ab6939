/// A thread that runs a process's jobs and can also host the process's other waits: the sleep queue's deadlines
/// (``SleepQueue``) and libcurl's wait on its sockets (the curl worker's loop).
///
/// With a thread each for jobs, sleeps and HTTP, every poll of a waiting sign-in handed itself from thread to thread
/// three times and switched context about eight times, at about 25 µs a switch on a virtual machine (issue 19). Hosted
/// on the one thread that runs the poll's jobs, a poll wakes that thread once, at its deadline, and it sends the
/// request and reads the answer itself.
///
/// The CLI's executor is one (`SerialThreadExecutor`); it is named once, at start, with ``ProcessExecutor``. Without a
/// host (an application, the library's tests) the sleep queue and the curl worker run threads of their own.
package protocol LoopHost: AnyObject, Sendable {
    /// Ends the host's current wait at once, or makes its next one return at once: after adding an earlier deadline
    /// from another thread. Callable from any thread.
    func interrupt()

    /// Whether the calling thread is the host's: work added there is seen before the host waits again, so it needs
    /// no ``interrupt()``.
    var isCurrent: Bool { get }

    /// Gives the host the wait for HTTP: from then on it calls `driver`'s ``LoopDriver/drive()`` in every round and
    /// waits in its ``LoopDriver/wait(milliseconds:)``. Called at most once, from any thread.
    func adopt(_ driver: any LoopDriver)
}

/// A wait on I/O that a ``LoopHost`` runs in its thread instead of a condition variable.
///
/// ``drive()`` and ``wait(milliseconds:)`` are called on the host's thread only; ``interrupt()`` from any.
package protocol LoopDriver: AnyObject, Sendable {
    /// Moves the driver's work on without waiting; returns whether it has more to do before the host may wait.
    func drive() -> Bool

    /// Waits until the driver's I/O is ready, its own timer is due, ``interrupt()`` is called (or was called since
    /// the last wait), or `milliseconds` pass (`Int32.max`: as long as it may).
    func wait(milliseconds: Int32)

    /// Ends the current ``wait(milliseconds:)`` at once, or makes the next one return at once.
    func interrupt()
}

extension Duration {
    /// This delay as a ``LoopDriver`` wait: in whole milliseconds, rounded up so that the wait never ends before it;
    /// 0 when it is not positive, at most `Int32.max`.
    package var waitMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return Int32.max }
        // 10^15 attoseconds make a millisecond.
        let rounded = milliseconds.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return rounded.overflow ? Int32.max : Int32(clamping: rounded.partialValue)
    }
}
