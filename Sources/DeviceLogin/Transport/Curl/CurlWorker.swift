#if canImport(CCurl)
import CCurl

/// The one thread that runs every libcurl transfer of the process, with one multi handle.
///
/// ``perform(_:setup:)`` queues the request as a ``CurlSubmission`` and wakes the thread with
/// `curl_multi_wakeup` (the one multi-handle call libcurl allows from any thread). The thread (see
/// ``CurlWorkerLoop``) starts queued transfers on easy handles from a small pool, drives them all in the multi
/// handle, hands each result back, and otherwise sleeps in `curl_multi_poll`: with nothing in flight it has no
/// timer and wakes only when a request is submitted or cancelled. Because one multi handle runs every transfer,
/// its connection cache keeps HTTP/1.1 connections alive between requests to the same server, and a share handle
/// lets every easy handle resume TLS sessions.
///
/// The process-wide worker is started on first use (``shared()``) and lives as long as the process. Where the
/// process names a ``LoopHost`` (the CLI's executor), the worker has no thread: the host runs its loop.
final class CurlWorker: Sendable {
    /// Bounds on the worker's resources.
    struct Limits: Sendable {
        /// The most transfers in the multi handle at once; more wait, in order, for one to end. Default 64.
        var maximumActiveTransfers = 64
        /// The most idle easy handles kept for reuse. Default 8.
        var maximumIdleHandles = 8
        /// The most connections kept open, in use or idle (`CURLMOPT_MAXCONNECTS`): when a finished transfer's
        /// connection would exceed it, the oldest idle one is closed. Default 80, room for every active transfer
        /// and 16 idle connections, so that a burst of transfers does not close the connections others reuse.
        var maximumOpenConnections = 80
    }

    /// The multi and share handles. Only the worker thread passes them to libcurl, except that any thread may
    /// pass `multi` to `curl_multi_wakeup`, which libcurl documents as thread-safe. Neither is freed while the
    /// thread runs: a started worker is never deinitialised, because the thread holds it.
    struct Handles: @unchecked Sendable {
        let multi: UnsafeMutableRawPointer
        let share: UnsafeMutableRawPointer
    }

    // `Locked` (a pthread mutex) rather than `Synchronization.Mutex`: ThreadSanitizer understands pthread mutexes
    // but not the futex under `Mutex` on Linux, and reported data races on what the lock protects.
    private static let sharedWorker = Locked<CurlWorker?>(nil)

    /// The bounds this worker keeps to.
    let limits: Limits
    /// The handles the thread drives.
    let handles: Handles
    /// Submissions not yet started, oldest first.
    private let queue = Locked<[CurlSubmission]>([])

    /// The process's worker, started on first use.
    ///
    /// When it cannot start (libcurl or the thread failed), the error is thrown and the next call tries again.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other``.
    static func shared() throws(TransportError) -> CurlWorker {
        let result = sharedWorker.withLock { worker -> Result<CurlWorker, TransportError> in
            if let worker { return .success(worker) }
            do throws(TransportError) {
                let started = try CurlWorker(limits: Limits(), host: ProcessExecutor.host)
                worker = started
                return .success(started)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Creates the handles and starts the worker's thread, or hands its loop to `host`.
    /// - Parameters:
    ///   - limits: The bounds to keep to.
    ///   - host: The thread that runs the loop between its jobs instead of a thread of the worker's (the process's
    ///     ``ProcessExecutor/host``, for the shared worker); it must adopt no other loop.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` when libcurl or the thread cannot start.
    init(limits: Limits, host: (any LoopHost)? = nil) throws(TransportError) {
        try CurlLibrary.initialize()
        guard let multi = dl_curl_multi_init() else {
            throw TransportError(.other, "libcurl could not create a multi handle")
        }
        guard let share = dl_curl_share_init() else {
            dl_curl_multi_cleanup(multi)
            throw TransportError(.other, "libcurl could not create a share handle")
        }
        self.limits = limits
        handles = Handles(multi: multi, share: share)
        // Both are optimisations: a libcurl that refuses them still sends every request correctly.
        _ = dl_curl_share_data(share, CURL_LOCK_DATA_SSL_SESSION)
        _ = dl_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maximumOpenConnections)
        // In a process whose jobs run on a loop host (the CLI), the host's thread runs the loop between its jobs, so
        // that a request and its answer are handed between no threads (issue 19).
        if let host {
            host.adopt(HostedCurlLoop(worker: self))
            return
        }
        let started = DedicatedThread.start { [self] in
            var loop = CurlWorkerLoop(worker: self)
            loop.run()
        }
        guard started else {
            throw TransportError(.other, "could not start a thread for HTTP requests")
        }
    }

    /// Runs only when the thread did not start (a running thread, or the host that runs the loop, keeps its worker).
    deinit {
        dl_curl_multi_cleanup(handles.multi)
        dl_curl_share_cleanup(handles.share)
    }

    /// Sends `request` on the worker's thread and waits for its response.
    ///
    /// Cancelling the calling task throws `CancellationError` at once and makes the thread drop the transfer:
    /// a queued one is never sent, a running one is aborted and its connection closed.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``TransportError`` when the transfer failed; `CancellationError` when the task was cancelled.
    func perform(_ request: HTTPRequest, setup: CurlTransfer.Setup) async throws -> HTTPResponse {
        let submission = CurlSubmission(request: request, setup: setup)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if submission.wait(on: continuation) {
                    submit(submission)
                }
            }
        } onCancel: {
            if submission.cancel() {
                wake()
            }
        }
    }

    /// Queues a submission and wakes the thread to start it.
    private func submit(_ submission: CurlSubmission) {
        queue.withLock { $0.append(submission) }
        wake()
    }

    /// Wakes the thread from `curl_multi_poll`, or makes its next one return at once.
    private func wake() {
        _ = dl_curl_multi_wakeup(handles.multi)
    }

    /// Removes and returns up to `count` queued submissions, oldest first, forgetting cancelled ones.
    func takeQueued(upTo count: Int) -> [CurlSubmission] {
        queue.withLock { queue in
            guard !queue.isEmpty else { return [] }
            queue.removeAll { $0.isCancelled }
            let taken = Array(queue.prefix(count))
            queue.removeFirst(taken.count)
            return taken
        }
    }

    /// Whether submissions wait to be started.
    var hasQueued: Bool {
        queue.withLock { !$0.isEmpty }
    }
}
#endif
