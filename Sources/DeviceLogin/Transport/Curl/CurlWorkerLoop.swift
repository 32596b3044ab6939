#if canImport(CCurl)
import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The ``CurlWorker``'s thread, or the ``LoopHost``'s that hosts it: everything here belongs to that thread alone.
///
/// Each round starts queued transfers (up to the limit), drops cancelled ones, lets libcurl move every transfer
/// on, hands finished ones back to their callers, and then sleeps in `curl_multi_poll` until a socket is ready,
/// libcurl's next timer (a timeout) is due, or the worker is woken. With nothing in flight libcurl has no timer,
/// so the thread sleeps until the next submission.
struct CurlWorkerLoop {
    /// How long to sleep when libcurl has no timer: as long as `curl_multi_poll` allows, about 24 days.
    static let idleWaitMilliseconds = Int32.max

    private let worker: CurlWorker
    private let multi: UnsafeMutableRawPointer
    private var pool: CurlHandlePool
    /// The transfers in the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// Prepares the loop for `worker`'s handles.
    init(worker: CurlWorker) {
        self.worker = worker
        multi = worker.handles.multi
        pool = CurlHandlePool(capacity: worker.limits.maximumIdleHandles, share: worker.handles.share)
    }

    /// Serves the worker's submissions for the rest of the process, on a thread of its own.
    mutating func run() -> Never {
        while true {
            if round() { continue }
            wait(milliseconds: Self.idleWaitMilliseconds)
        }
    }

    /// One round without waiting: starts queued transfers, drops cancelled ones, lets libcurl move every transfer
    /// on and hands finished ones back.
    /// - Returns: Whether queued submissions can start at once (the round must run again before any wait).
    mutating func round() -> Bool {
        startQueued()
        dropCancelled()
        var running: Int32 = 0
        let performed = dl_curl_multi_perform(multi, &running)
        if performed != CURLM_OK {
            failAll(String(cString: dl_curl_multi_strerror(performed)))
        }
        handBackFinished()
        return active.count < worker.limits.maximumActiveTransfers && worker.hasQueued
    }

    /// Sleeps in `curl_multi_poll` until a socket is ready, libcurl's own timer is due, the worker is woken, or
    /// `milliseconds` pass.
    mutating func wait(milliseconds: Int32) {
        let polled = dl_curl_multi_poll(multi, nil, 0, milliseconds, nil)
        if polled != CURLM_OK {
            failAll(String(cString: dl_curl_multi_strerror(polled)))
            // Whatever broke polling must not turn the loop around it into a busy one.
            usleep(10_000)
        }
    }

    /// Moves queued submissions into the multi handle while there is room (and forgets cancelled ones even when
    /// there is none).
    private mutating func startQueued() {
        let room = max(0, worker.limits.maximumActiveTransfers - active.count)
        for submission in worker.takeQueued(upTo: room) {
            guard let easy = pool.take() else {
                submission.finish(with: .failure(TransportError(.other, "libcurl could not create a transfer")))
                continue
            }
            let transfer = CurlTransfer(submission: submission, easy: easy)
            guard transfer.configure() else {
                pool.recycle(easy)
                submission.finish(with: .failure(TransportError(.other, "libcurl refused the request's options")))
                continue
            }
            guard dl_curl_multi_add_handle(multi, easy) == CURLM_OK else {
                pool.recycle(easy)
                submission.finish(with: .failure(TransportError(.other, "libcurl could not start the transfer")))
                continue
            }
            active[easy] = transfer
        }
    }

    /// Aborts the transfers whose callers were cancelled (they were told so already); removing an unfinished
    /// transfer closes its connection.
    private mutating func dropCancelled() {
        for (easy, transfer) in active where transfer.submission.isCancelled {
            remove(easy)
        }
    }

    /// Hands the result of every transfer libcurl reports done to its caller.
    private mutating func handBackFinished() {
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while dl_curl_multi_next_done(multi, &easy, &code) != 0 {
            guard let easy, let transfer = active[easy] else { continue }
            let result = transfer.result(of: code)
            remove(easy)
            transfer.submission.finish(with: result)
        }
    }

    /// Fails every transfer in flight after the multi handle itself failed.
    private mutating func failAll(_ detail: String) {
        for (easy, transfer) in active {
            let result = transfer.failure(detail)
            remove(easy)
            transfer.submission.finish(with: result)
        }
    }

    /// Takes a transfer out of the multi handle and returns its easy handle to the pool.
    private mutating func remove(_ easy: UnsafeMutableRawPointer) {
        dl_curl_multi_remove_handle(multi, easy)
        pool.recycle(easy)
        active[easy] = nil
    }
}

/// The curl worker's loop run by a ``LoopHost`` in its own thread instead of one of the worker's: the host calls
/// ``drive()`` in every round and waits in ``wait(milliseconds:)``, which is `curl_multi_poll`, woken by
/// `curl_multi_wakeup` (the one multi-handle call libcurl allows from any thread).
final class HostedCurlLoop: LoopDriver, @unchecked Sendable {
    // `loop` is touched on the host's thread only (drive and wait); `interrupt` touches only the multi handle,
    // through the call libcurl makes thread-safe. That is what makes the `@unchecked Sendable` true.
    private var loop: CurlWorkerLoop
    private let multi: UnsafeMutableRawPointer

    init(worker: CurlWorker) {
        loop = CurlWorkerLoop(worker: worker)
        multi = worker.handles.multi
    }

    func drive() -> Bool { loop.round() }

    func wait(milliseconds: Int32) { loop.wait(milliseconds: milliseconds) }

    func interrupt() { _ = dl_curl_multi_wakeup(multi) }
}
#endif
