#if canImport(CCurl)
import CCurl
import Synchronization

/// The link between a cancelled task and the thread running its transfer.
///
/// The task's cancellation handler sets the flag and wakes the transfer's `curl_multi_poll` (the one libcurl call
/// that may be made from another thread), so an idle transfer notices at once instead of at its next timeout.
/// The transfer's progress callback reads the same flag while data flows.
final class CurlCancellation: Sendable {
    /// A multi handle as seen from the cancelling thread, which only ever passes it to `curl_multi_wakeup`
    /// (documented as callable from any thread) while the lock keeps the handle alive.
    private struct WakeableMulti: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    private let cancelled = Atomic<Bool>(false)
    /// The multi handle to wake while the transfer waits in it; `nil` before and after.
    private let waitingMulti = Mutex<WakeableMulti?>(nil)

    /// Whether the task asked the transfer to stop.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Asks the transfer to stop and wakes it if it is waiting.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        waitingMulti.withLock { multi in
            if let multi { _ = curl_multi_wakeup(multi.handle) }
        }
    }

    /// Registers the multi handle the transfer is about to wait in.
    func attach(_ multi: UnsafeMutableRawPointer) {
        waitingMulti.withLock { $0 = WakeableMulti(handle: multi) }
    }

    /// Forgets the multi handle; after this returns no other thread touches it, so it may be cleaned up.
    func detach() {
        waitingMulti.withLock { $0 = nil }
    }
}
#endif
