import Dispatch

extension TerminalOutput {
    /// Writes `text` on the one serial queue every presenter writes on, off the cooperative pool, in order:
    /// `write(2)` to a terminal blocks while output is paused (Ctrl-S, serial flow control), and blocking calls must
    /// not hold one of the few threads of the cooperative pool.
    ///
    /// - Parameter text: The text to write; nothing is written when it is empty.
    func writeOffPool(_ text: String) async {
        guard !text.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            terminalOutputQueue.async {
                self.write(text)
                continuation.resume()
            }
        }
    }
}

/// The serial queue every presenter writes on.
private let terminalOutputQueue = DispatchQueue(label: "DeviceLoginTerminal.output")
