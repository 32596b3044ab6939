/// What `pam_device_login.so` knows of the terminal the person answers on, from what PAM exposes: the `PAM_TTY`
/// item, whether `PAM_RHOST` is set, and `TERM` (the PAM environment's, else the application's). It decides
/// `qr = auto` (docs/ssh.md).
///
/// The rule: a QR code is drawn only for a terminal on this machine — `PAM_TTY` names a terminal device (`/dev/…`,
/// `ttyN`, `pts/N`, `:N` is an X display and does not), no remote host, and a `TERM` that is set and not `dumb`.
/// Over SSH the client's terminal is unknown while the module runs: sshd sets `PAM_TTY` to `ssh` and learns the
/// client's `TERM` only with the pty request, after authentication, so `auto` draws none there; `qr = on` draws one
/// for clients known to be terminals with UTF-8 (OpenSSH in a terminal), `qr = off` never.
struct PAMClientTerminal: Sendable, Equatable {
    /// `PAM_TTY`; nil when unset.
    var tty: String?
    /// Whether `PAM_RHOST` is set: the person is on another machine.
    var isRemote: Bool
    /// `TERM`; nil when unset.
    var term: String?

    /// The longest value the module passes; longer ones are not a terminal's name.
    static let maximumLength = 64

    /// Whether the terminal can show a QR code's half blocks, by the rule above.
    var canShowQRCode: Bool {
        guard !isRemote, let tty, let term, !term.isEmpty, term != "dumb",
            tty.utf8.count <= Self.maximumLength, term.utf8.count <= Self.maximumLength
        else { return false }
        return tty.hasPrefix("/dev/") || tty.hasPrefix("tty") || tty.hasPrefix("pts/")
    }

    /// Whether the prompt carries a QR code under `setting`.
    func showsQRCode(_ setting: PAMConfiguration.QRSetting) -> Bool {
        switch setting {
        case .on: true
        case .off: false
        case .auto: canShowQRCode
        }
    }
}
