#if canImport(CCurl)

/// One request handed to the ``CurlWorker``, and the one way back to the task that waits for its response.
///
/// The waiting task's continuation is resumed exactly once, by whichever comes first: the worker finishing the
/// transfer (``finish(with:)``), or the task being cancelled (``cancel()``). A lock guards the hand-over, so the
/// loser of that race finds the continuation gone and does nothing. A submission cancelled before its
/// continuation exists is never handed to the worker at all.
final class CurlSubmission: Sendable {
    typealias Continuation = CheckedContinuation<HTTPResponse, any Error>

    private enum State {
        /// Created; the caller has not suspended yet.
        case created
        /// The caller waits; the request is with the worker or about to be.
        case waiting(Continuation)
        /// The caller was told `CancellationError`; the worker drops the request wherever it is.
        case cancelled
        /// The caller was given the transfer's result.
        case finished
    }

    /// The request to send.
    let request: HTTPRequest
    /// How to send it.
    let setup: CurlTransfer.Setup
    private let state = Locked(State.created)

    /// Creates a submission for `request`.
    init(request: HTTPRequest, setup: CurlTransfer.Setup) {
        self.request = request
        self.setup = setup
    }

    /// Whether the caller stopped waiting because its task was cancelled.
    var isCancelled: Bool {
        state.withLock { state in
            if case .cancelled = state { return true }
            return false
        }
    }

    /// Takes the continuation the caller waits on.
    /// - Returns: Whether the request should go to the worker; `false` when the task was cancelled first, in
    ///   which case `continuation` has been resumed with `CancellationError` already.
    func wait(on continuation: Continuation) -> Bool {
        let accepted = state.withLock { state in
            guard case .created = state else { return false }
            state = .waiting(continuation)
            return true
        }
        if !accepted {
            continuation.resume(throwing: CancellationError())
        }
        return accepted
    }

    /// Gives the caller the transfer's result, unless it was cancelled or given one already.
    func finish(with result: Result<HTTPResponse, any Error>) {
        let continuation = state.withLock { state -> Continuation? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// Tells the caller `CancellationError` at once, unless it was given a result already.
    /// - Returns: Whether this call cancelled the submission (the worker should then be woken to drop it).
    @discardableResult
    func cancel() -> Bool {
        let (cancelled, continuation) = state.withLock { state -> (Bool, Continuation?) in
            switch state {
            case .created:
                state = .cancelled
                return (true, nil)
            case .waiting(let continuation):
                state = .cancelled
                return (true, continuation)
            case .cancelled, .finished:
                return (false, nil)
            }
        }
        continuation?.resume(throwing: CancellationError())
        return cancelled
    }
}
#endif
