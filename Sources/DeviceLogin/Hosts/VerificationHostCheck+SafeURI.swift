extension VerificationHostCheck {
    /// The verification URI a person may be shown, as a ``SafeURI``: ``verificationURI`` when the check does not
    /// refuse it (``refusal``) and it is a plain `http(s)` link; nil otherwise, and then no address is shown at all.
    ///
    /// This is the one verdict on the address: the prompt, the kiosk, the `authorization` event and a detached
    /// sign-in (``PendingAuthorization``) all go by it, so what one refuses no other shows or keeps.
    public var shownVerificationURI: SafeURI? {
        refusal == nil ? SafeURI(verificationURI) : nil
    }

    /// The complete verification URI a person may be shown beside ``shownVerificationURI``, as a ``SafeURI``: only
    /// when there is a plain one, a QR code may be drawn (``allowsQRCode``: same host, no downgrade) and it is itself
    /// a plain `http(s)` link.
    public var shownVerificationURIComplete: SafeURI? {
        guard shownVerificationURI != nil, allowsQRCode else { return nil }
        return verificationURIComplete.flatMap(SafeURI.init)
    }
}
