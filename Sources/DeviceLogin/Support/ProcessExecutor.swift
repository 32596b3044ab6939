/// The task executor a process runs all its work on, when it has one of its own: the CLI runs every job on one
/// thread (its `SerialThreadExecutor`) and says so here once, at start. Tasks the library starts unstructured — a
/// refresh shared by many callers, which must outlive the one that started it — take it as their preference, so
/// they run there too and not on the global executor.
///
/// Nil in an application (the default): those tasks then run on the global concurrent executor, as any task does.
/// Why it matters in the CLI: the first job on the global executor starts libdispatch's worker pool, whose monitor
/// then wakes the process every second for the rest of its life; `device-login agent`, idle for hours, woke once a
/// second after its first refresh (issue 19).
package enum ProcessExecutor {
    private static let stored = Locked<(any TaskExecutor)?>(nil)
    private static let storedHost = Locked<(any LoopHost)?>(nil)

    /// The executor unstructured tasks of the library prefer; nil for the global executor.
    package static var preferred: (any TaskExecutor)? {
        stored.withLock { $0 }
    }

    /// The thread that hosts the sleep queue's deadlines and the curl worker's loop; nil for threads of their own.
    package static var host: (any LoopHost)? {
        storedHost.withLock { $0 }
    }

    /// Makes `executor` the one unstructured tasks prefer, and `host` the thread that hosts the process's other
    /// waits, from now on. Called before the first sleep and the first request: they choose their thread then.
    package static func use(_ executor: (any TaskExecutor)?, host: (any LoopHost)? = nil) {
        stored.withLock { $0 = executor }
        storedHost.withLock { $0 = host }
    }
}
