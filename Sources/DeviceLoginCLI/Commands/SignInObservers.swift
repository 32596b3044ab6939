/// Who follows a sign-in while it polls, and how: the one fan-out of `login`, `login --kiosk` and `login --resume`.
///
/// Each observer is added before the sign-in runs:
/// - a **follower** (``follow(_:with:)``) reads every event, in order, on its own task, until the events end: the
///   prompt or the kiosk screen, the `--events` lines, the progress a resumed sign-in saves;
/// - a **companion** (``alongside(_:)``) runs beside the polling to its own end: the `--notify-command` hook;
/// - a **feeder** (``whilePolling(_:)``) adds events of its own while the polling runs, and is cancelled when it
///   ends: the kiosk's terminal resizes.
///
/// ``run(_:)`` then polls, handing each event to every follower. What it promises, for all three sign-ins:
/// - every follower has seen every event, and every companion has ended, before ``run(_:)`` returns or throws
///   the polling's error (a prompt never stops short of the failure it is about to show);
/// - a follower that throws (the program reading `--events` is gone: exit 74) ends the sign-in with its error;
/// - cancelling the calling task (Ctrl-C) ends them all at once.
///
/// ```swift
/// var observers = SignInObservers<DeviceFlowEvent>()
/// observers.follow { events in await presenter.run(events: events) }
/// let token = try await observers.run { report in try await flow.pollForToken(authorization, onEvent: report) }
/// ```
struct SignInObservers<Event: Sendable>: Sendable {
    /// One observer: what to hand it for each event, how to tell it the events ended, and its work.
    private struct Member: Sendable {
        var deliver: @Sendable (Event) -> Void = { _ in }
        var finish: @Sendable () -> Void = {}
        var work: @Sendable (_ report: @escaping @Sendable (Event) -> Void) async throws -> Void
        /// Cancelled once the polling ends, rather than awaited to its own end.
        var endsWithPolling = false
    }

    private var members: [Member] = []

    /// Adds a follower of what `see` picks from each event (nil: an event it does not follow).
    mutating func follow<Seen: Sendable>(
        _ see: @escaping @Sendable (Event) -> Seen?,
        with body: @escaping @Sendable (AsyncStream<Seen>) async throws -> Void
    ) {
        let (stream, sink) = AsyncStream.makeStream(of: Seen.self)
        members.append(
            Member(
                deliver: { event in if let seen = see(event) { sink.yield(seen) } }, finish: { sink.finish() },
                work: { _ in try await body(stream) }))
    }

    /// Adds a follower of every event.
    mutating func follow(with body: @escaping @Sendable (AsyncStream<Event>) async throws -> Void) {
        follow({ $0 }, with: body)
    }

    /// Adds work that runs beside the polling until it ends by itself.
    mutating func alongside(_ work: @escaping @Sendable () async -> Void) {
        members.append(Member(work: { _ in await work() }))
    }

    /// Adds work that reports events of its own while the polling runs; it is cancelled when the polling ends.
    mutating func whilePolling(
        _ work: @escaping @Sendable (_ report: @escaping @Sendable (Event) -> Void) async -> Void
    ) {
        members.append(Member(work: { report in await work(report) }, endsWithPolling: true))
    }

    /// Runs `poll` with the observers; `poll` reports each event through the closure it is given.
    /// - Returns: What `poll` returned.
    /// - Throws: What `poll` threw, once every observer has seen every event; or the first error of a follower.
    func run<Value: Sendable>(
        _ poll: @escaping @Sendable (_ report: @escaping @Sendable (Event) -> Void) async throws -> Value
    ) async throws -> Value {
        let members = members
        let report: @Sendable (Event) -> Void = { event in
            for member in members { member.deliver(event) }
        }
        let (polled, polling) = AsyncStream.makeStream(of: Never.self)
        let finish: @Sendable () -> Void = {
            for member in members { member.finish() }
            polling.finish()
        }
        // The polling's outcome comes back as a value, so that the followers drain before its error is thrown.
        let outcome = try await withThrowingTaskGroup(of: Result<Value, any Error>?.self) { group in
            defer { finish() }
            for member in members {
                group.addTask {
                    guard member.endsWithPolling else {
                        try await member.work(report)
                        return nil
                    }
                    await withTaskGroup(of: Void.self) { feeding in
                        feeding.addTask { try? await member.work(report) }
                        feeding.addTask { for await _ in polled {} }
                        await feeding.next()
                        feeding.cancelAll()
                    }
                    return nil
                }
            }
            group.addTask {
                defer { finish() }
                do {
                    return .success(try await poll(report))
                } catch {
                    return .failure(error)
                }
            }
            var outcome: Result<Value, any Error> = .failure(CancellationError())
            for try await result in group {
                if let result { outcome = result }
            }
            return outcome
        }
        return try outcome.get()
    }
}
