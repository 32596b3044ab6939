/// Durations in the words and figures the prompt and the status line use.
enum TimeText {
    /// Whole seconds in `duration`, rounded up: a countdown shows 1 s until the time is really up.
    static func seconds(roundingUp duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    /// "15 min", "14 min 59 s", "45 s", "1 h", "1 h 30 min": for the prompt's expiry line.
    static func words(seconds: Int) -> String {
        let seconds = max(0, seconds)
        if seconds >= 3600 {
            let minutes = seconds % 3600 / 60
            return "\(seconds / 3600) h" + (minutes > 0 ? " \(minutes) min" : "")
        }
        if seconds >= 60 {
            return "\(seconds / 60) min" + (seconds % 60 > 0 ? " \(seconds % 60) s" : "")
        }
        return "\(seconds) s"
    }

    /// "14:59", "0:05", "1:00:00": for the live countdown.
    static func clock(seconds: Int) -> String {
        let seconds = max(0, seconds)
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds >= 3600 {
            return "\(seconds / 3600):\(twoDigits(seconds % 3600 / 60)):\(twoDigits(seconds % 60))"
        }
        return "\(seconds / 60):\(twoDigits(seconds % 60))"
    }
}
