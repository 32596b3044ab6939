import DeviceLogin

/// What a ``KioskPresenter`` is told: a code to show, the flow's progress, what follows an expired code, a new
/// terminal size.
public enum KioskUpdate: Sendable, Hashable {
    /// A new code to show; its countdown starts now from its `expires_in`.
    case show(DeviceAuthorization)
    /// An event of the flow polling for the code shown: ``DeviceFlowEvent/retrying(attempt:delay:reason:)`` is
    /// shown, a later poll answered clears it; ``DeviceFlowEvent/authorizationReceived(_:)`` is ``show(_:)``.
    case flow(DeviceFlowEvent)
    /// A state set by the caller: the code expired, a new one is being requested.
    case state(KioskState)
    /// The terminal's new size (after `SIGWINCH`): the screen is cleared and drawn again at that size.
    case resized(columns: Int, rows: Int)
}
