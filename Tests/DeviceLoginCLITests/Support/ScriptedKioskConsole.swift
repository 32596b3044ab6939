import DeviceLogin

@testable import DeviceLoginCLI

/// A kiosk console for in-process tests: a keyboard whose every wait is answered by one key press, and, if given, a
/// resize of the terminal just before that key press. Records what the sign-in asked of it.
final class ScriptedKioskConsole: KioskConsole {
    let hasKeyboard: Bool
    private let sizeBeforeKey: KioskConsoleSize?
    private let record = Locked(Record())
    private let resizeSink = Locked<AsyncStream<KioskConsoleSize>.Continuation?>(nil)

    /// What the sign-in did with the console.
    struct Record: Sendable, Equatable {
        var started = 0
        var stopped = 0
        var keyWaits = 0
    }

    init(hasKeyboard: Bool, sizeBeforeKey: KioskConsoleSize? = nil) {
        self.hasKeyboard = hasKeyboard
        self.sizeBeforeKey = sizeBeforeKey
    }

    var recorded: Record { record.withLock { $0 } }

    func start() { record.withLock { $0.started += 1 } }
    func stop() { record.withLock { $0.stopped += 1 } }

    func resizes() -> AsyncStream<KioskConsoleSize> {
        let (stream, sink) = AsyncStream.makeStream(of: KioskConsoleSize.self)
        resizeSink.withLock { $0 = sink }
        return stream
    }

    func waitForKey() async throws -> Bool {
        record.withLock { $0.keyWaits += 1 }
        if let sizeBeforeKey { resizeSink.withLock { $0 }?.yield(sizeBeforeKey) }
        try Task.checkCancellation()
        return true
    }
}
