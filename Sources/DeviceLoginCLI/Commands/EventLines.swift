import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login --events`: the flow's events on stdout as JSON lines, through the core's one encoder
/// (``FlowEventEncoder``), each stamped with the context's `now`.
///
/// The engine's own `succeeded` and `failed` are not written here: `login` writes the last line itself once it
/// knows how the sign-in ended (the profile saved, the exit code), in place of the usual result.
struct EventLines: Sendable {
    let stdout: ResultSink
    let now: @Sendable () -> Date
    let encoder = FlowEventEncoder()

    init(context: CLIContext) {
        stdout = context.stdout
        now = context.now
    }

    /// Writes the line of `event`, if the schema has one and it is not the end of polling, stamped `time` (the time
    /// the event happened; default now).
    /// - Throws: ``ResultSink/WriteError`` when stdout is gone: the program that reads the events is.
    func write(_ event: DeviceFlowEvent, at time: Date? = nil) throws(ResultSink.WriteError) {
        switch event {
        case .succeeded, .failed: return
        default: break
        }
        guard let line = encoder.line(for: event, context: FlowEventContext(at: time ?? now())) else { return }
        try stdout.line(line)
    }

    /// Writes every event of `events`, each stamped with the time it happened, until the stream ends. The time is
    /// taken where the event is reported, not here: this task may run after the clock has moved on.
    /// - Throws: ``ResultSink/WriteError`` when stdout is gone.
    func write(_ events: AsyncStream<(event: DeviceFlowEvent, at: Date)>) async throws {
        for await (event, time) in events { try write(event, at: time) }
    }

    /// Writes the `flow` line: which grant runs and why.
    func writeFlow(_ decision: FlowChoice.Decision) throws(ResultSink.WriteError) {
        try stdout.line(encoder.flowLine(decision, context: FlowEventContext(at: now())))
    }

    /// Writes the code grant's `link` line (not written for a link that is not safe to show).
    func writeLink(_ url: String, flow: FlowChoice.Flow) throws(ResultSink.WriteError) {
        guard let line = encoder.linkLine(url: url, flow: flow, context: FlowEventContext(at: now())) else { return }
        try stdout.line(line)
    }

    /// Writes the `redirected` line: the code grant's answer arrived and matched.
    func writeRedirected() throws(ResultSink.WriteError) {
        try stdout.line(encoder.redirectedLine(context: FlowEventContext(at: now())))
    }

    /// The `succeeded` line: the profile the tokens were saved as (nil when not saved), when the access token
    /// expires and the scopes; never a token.
    func succeededLine(_ response: TokenResponse, receivedAt: Date, profile: String?, scopes: [String]) -> String {
        let expiry = response.expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) }
        let context = FlowEventContext(at: now(), profile: profile, tokenExpiresAt: expiry, scopes: scopes)
        return encoder.line(for: .succeeded, context: context) ?? ""
    }

    /// The `failed` line for an error that ended `login`, with the exit code it ends with; nil for an error that
    /// leaves no stdout to write to.
    func failedLine(for error: any Error) -> String? {
        let context = { (code: ExitCode) in FlowEventContext(at: now(), exitCode: Int(code.rawValue)) }
        switch error {
        case let error as DeviceLoginError:
            return encoder.failedLine(error, context: context(ExitCode(error)))
        case is CancellationError:
            return encoder.failedLine(
                code: "cancelled", message: "the sign-in was cancelled", context: context(.cancelled))
        case is ResultSink.WriteError:
            return nil
        case let error as UsageError:
            return encoder.failedLine(code: "usage", message: error.message, context: context(.usage))
        default:
            return encoder.failedLine(code: "failure", message: String(describing: error), context: context(.failure))
        }
    }
}
