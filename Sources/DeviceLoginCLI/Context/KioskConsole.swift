/// The terminal a kiosk sign-in (`login --kiosk`) reads from: its size as it changes, and key presses. The process's
/// is ``SystemKioskConsole``; tests give a scripted one through ``CLIContext/kioskConsole``.
protocol KioskConsole: Sendable {
    /// Whether a key press can be read: standard input is a terminal.
    var hasKeyboard: Bool { get }
    /// Puts the keyboard in cbreak mode without echo, so a key press is read at once and typing does not draw on the
    /// screen; Ctrl-C still sends SIGINT. The process's console also starts watching for a lost parent or terminal
    /// (``SystemKioskConsole``), which ends the sign-in as SIGHUP does.
    func start()
    /// Puts the keyboard back as ``start()`` found it, and stops the watch. Safe to call more than once, and from the
    /// interrupt handler.
    func stop()
    /// The terminal's size after each resize (`SIGWINCH`), until the calling task is cancelled.
    func resizes() -> AsyncStream<KioskConsoleSize>
    /// Discards keys pressed before, then waits for one.
    /// - Returns: `false` when standard input ended (or cannot be read) instead.
    /// - Throws: `CancellationError` when the calling task is cancelled.
    func waitForKey() async throws -> Bool
}

/// A terminal's size in character cells.
struct KioskConsoleSize: Sendable, Hashable {
    var columns: Int
    var rows: Int
}
