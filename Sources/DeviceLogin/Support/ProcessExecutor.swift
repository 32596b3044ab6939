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

    /// The executor unstructured tasks of the library prefer; nil for the global executor.
    package static var preferred: (any TaskExecutor)? {
        stored.withLock { $0 }
    }

    /// Makes `executor` the one unstructured tasks prefer, from now on.
    package static func use(_ executor: (any TaskExecutor)?) {
        stored.withLock { $0 = executor }
    }
}
