import DeviceLogin

/// What a QR code of a device authorization may carry: the checked link and a caption for it, or the one line that
/// says why no QR code is drawn. Shared by the prompt and the kiosk screen, so both refuse alike.
enum QRTarget: Sendable, Hashable {
    /// The link to encode, and a caption naming the host it opens.
    case link(SafeURI, caption: String)
    /// No QR code, and why.
    case refused(String)

    /// The target for a device authorization's host check.
    ///
    /// - Parameter check: ``DeviceAuthorization/hostCheck`` of the authorization shown.
    init(_ check: VerificationHostCheck) {
        // A refused verification_uri refuses the QR code too, even when verification_uri_complete looks safe:
        // the person could not check the address against one shown in words.
        guard check.shownVerificationURI != nil else {
            self = .refused("QR code not shown: the server's link is not a plain http(s) address.")
            return
        }
        // The QR code would carry the code over plain http, a downgrade the person cannot see in it.
        guard !check.warnings.contains(where: { $0.kind == .completeURIDowngraded }) else {
            self = .refused("QR code not shown: the server's link with the code uses plain http, not https.")
            return
        }
        // The QR code would carry a host the person cannot read, other than the one shown in words.
        guard check.allowsQRCode else {
            self = .refused("QR code not shown: the server's two links lead to different hosts.")
            return
        }
        guard let uri = SafeURI(check.qrURI) else {
            self = .refused("QR code not shown: the server's link is not a plain http(s) address.")
            return
        }
        let caption =
            check.verificationURIComplete == nil
            ? "Scan to open \(uri.hostAndPort), then enter the code below."
            : "Scan to open \(uri.hostAndPort) with the code below filled in."
        self = .link(uri, caption: caption)
    }

    /// The target for a sign-in link with no code to type (the authorization code grant's paste mode): refused
    /// exactly as a device authorization's `verification_uri` would be, with a caption that asks for no code.
    ///
    /// - Parameter check: The host check of the link alone, against the issuer.
    init(signInLink check: VerificationHostCheck) {
        self.init(check)
        if case .link(let uri, _) = self {
            self = .link(uri, caption: "Scan to open \(uri.hostAndPort) and sign in there.")
        }
    }

    /// The QR code of the link, or why there is none (the link too long, libqrencode failing).
    ///
    /// - Parameter errorCorrection: The error correction level.
    /// - Returns: The matrix and the caption, or the line saying why there is no QR code.
    func matrix(errorCorrection: QRMatrix.ErrorCorrection) -> Result<(QRMatrix, caption: String), Refusal> {
        switch self {
        case .refused(let notice):
            return .failure(Refusal(notice: notice))
        case .link(let uri, let caption):
            do {
                return .success((try QRMatrix(encoding: uri.string, errorCorrection: errorCorrection), caption))
            } catch {
                return .failure(Refusal(notice: "QR code not shown: \(error)."))
            }
        }
    }

    /// Why no QR code is drawn, as the line shown instead.
    struct Refusal: Error, Hashable {
        /// The line, e.g. "QR code not shown: the server's two links lead to different hosts.".
        let notice: String
    }
}
