/// The one result of a piece of work that many tasks wait for, each able to stop waiting when it is cancelled.
///
/// `Task.value` cannot be abandoned: a cancelled caller would still wait for the whole refresh. Here each waiter
/// parks a continuation; cancelling a waiter resumes only that waiter with `CancellationError`, while the work
/// itself goes on for the others (and so that a rotated refresh token is never lost half-way).
final class SharedOutcome<Value: Sendable>: Sendable {
    private struct Waiting {
        var result: Result<Value, any Error>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(Waiting())

    /// The number of tasks waiting now (for tests that line callers up before the work ends).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Delivers the result to every waiter, present and future. Only the first call counts.
    func finish(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { waiting -> [CheckedContinuation<Value, any Error>] in
            guard waiting.result == nil else { return [] }
            waiting.result = result
            defer { waiting.waiters = [:] }
            return Array(waiting.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits for the result.
    /// - Throws: The work's error, or `CancellationError` as soon as the calling task is cancelled.
    func value() async throws -> Value {
        let id = state.withLock { waiting -> UInt64 in
            waiting.nextID += 1
            return waiting.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { waiting -> Result<Value, any Error>? in
                    if let result = waiting.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiting.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
