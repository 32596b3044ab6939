import DeviceLogin

/// What is on the kiosk screen: the pure state behind ``KioskPresenter``, with no I/O and no clock.
struct KioskDisplay {
    private(set) var columns: Int
    private(set) var rows: Int
    private(set) var authorization: DeviceAuthorization?
    private(set) var state = KioskState.waiting
    /// When the code shown expires, as a duration since the presenter started.
    private var expiresAt = Duration.zero
    /// The last frame written, so an unchanged one is not written again; nil clears the screen before the next.
    private var lastFrame: String?

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// Takes `update`, received at `now`.
    mutating func apply(_ update: KioskUpdate, at now: Duration) {
        switch update {
        case .show(let authorization), .flow(.authorizationReceived(let authorization)):
            self.authorization = authorization
            expiresAt = now + .seconds(authorization.response.expiresIn)
            state = .waiting
        case .flow(.retrying(_, _, let reason)):
            state = .retrying(reason: reason)
        case .flow(.pending), .flow(.slowDown):
            if case .retrying = state { state = .waiting }
        case .flow:
            break
        case .state(let new):
            state = new
        case .resized(let columns, let rows):
            guard columns > 0, rows > 0, columns != self.columns || rows != self.rows else { return }
            (self.columns, self.rows) = (columns, rows)
            lastFrame = nil
        }
    }

    /// The text to write at `now`: nothing before a code arrived or when the frame did not change; after a resize,
    /// the screen cleared first.
    mutating func frame(_ screen: KioskScreen, at now: Duration) -> String {
        guard let authorization else { return "" }
        let secondsLeft = TimeText.seconds(roundingUp: expiresAt - now)
        let frame = screen.frame(
            for: authorization, secondsLeft: secondsLeft, state: state, columns: columns, rows: rows)
        defer { lastFrame = frame }
        if lastFrame == nil { return Self.clear + frame }
        return frame == lastFrame ? "" : frame
    }

    /// Erase the whole screen (ED 2): after a resize the terminal may have moved the old frame's lines.
    static let clear = "\u{1B}[2J"
}
