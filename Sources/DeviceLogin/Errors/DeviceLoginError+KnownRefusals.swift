extension DeviceLoginError {
    /// This error with advice for a refusal whose cause is known, and its ``Reason``; unchanged for any other.
    ///
    /// - Microsoft Entra ID's `AADSTS53003` (in `error_description`, or 53003 in its `error_codes`), whatever the
    ///   `error`: Conditional Access blocked the sign-in, which a policy that does not allow the device code flow
    ///   does. Only an administrator, or a device the policy accepts, can change that.
    ///   ``Reason/Kind/conditionalAccessBlocked``.
    /// - `unauthorized_client` from the device authorization or token endpoint: RFC 6749 §5.2, "the authenticated
    ///   client is not authorized to use this authorization grant type": the client is not allowed the Device
    ///   Authorization Grant. ``Reason/Kind/deviceGrantNotAllowed``.
    /// - GitHub's `device_flow_disabled`: the app has not enabled Device Flow in its settings.
    ///   ``Reason/Kind/deviceGrantNotAllowed``.
    ///
    /// The hints name no command or flag: an app that embeds the library has none.
    func advisingOnKnownRefusal() -> DeviceLoginError {
        guard let error = oauthError else { return self }
        var advised = self
        if Self.isConditionalAccessBlock(error) {
            advised.hint =
                "Microsoft Entra ID's Conditional Access blocked this sign-in (AADSTS53003), as a policy that does not "
                + "allow the device code flow does: an administrator must allow the device code flow for this app "
                + "and user, or sign in on a device the policy accepts (a compliant or managed device)"
            advised.reason = .conditionalAccessBlocked
        } else if error.code == .unauthorizedClient {
            advised.hint =
                "this client may not use the device flow: enable the Device Authorization Grant (device code) for "
                + "the client at the provider, or use a client that has it"
            advised.reason = .deviceGrantNotAllowed
        } else if error.code.rawValue == "device_flow_disabled" {
            advised.hint =
                "GitHub has the device flow turned off for this app: tick \"Enable Device Flow\" in the app's settings "
                + "(GitHub App or OAuth app, under Developer settings)"
            advised.reason = .deviceGrantNotAllowed
        }
        return advised
    }

    /// Microsoft Entra ID's error 53003, "Access has been blocked by Conditional Access policies".
    static func isConditionalAccessBlock(_ error: OAuthError) -> Bool {
        if error.description?.contains("AADSTS53003") == true { return true }
        guard case .array(let codes)? = error.additionalFields["error_codes"] else { return false }
        return codes.contains { $0.integerValue == 53003 }
    }
}
