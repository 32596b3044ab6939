import DeviceLoginTerminal
import Foundation

/// Records every write, and hands each one to a stream the test can wait on.
final class RecordingOutput: TerminalOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [String] = [] // guarded by `lock`
    let writes: AsyncStream<String>
    private let sink: AsyncStream<String>.Continuation

    init() {
        (writes, sink) = AsyncStream.makeStream(of: String.self)
    }

    func write(_ text: String) {
        lock.locked { chunks.append(text) }
        sink.yield(text)
    }

    var text: String { lock.locked { chunks.joined() } }
}
