#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place that reads real time: the defaults for every injected clock and `now` closure.
public enum SystemTime {
    /// The default clock for sleeps and deadlines: `ContinuousClock` (keeps counting while a machine sleeps,
    /// so an expired device code is known to be expired after a suspend).
    public static var clock: ContinuousClock { ContinuousClock() }

    /// The default wall-clock stamp: the current date.
    @Sendable public static func now() -> Date { Date() }
}
