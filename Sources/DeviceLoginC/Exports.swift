import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The C ABI of libdevicelogin: every function of include/device_login.h, exported with `@c` (SE-0495). Each one is a
// thin shell: check the arguments, call EmbeddedClient, turn the outcome into a status and an optional message. The
// header documents ownership and thread-safety; docs/embedding.md the promise that this ABI keeps.

/// `dl_event_callback`: `int (*)(void *context, const char *line, size_t length)`.
public typealias DLEventCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Int32

/// A C caller's `char **` for a string the library hands over.
public typealias DLStringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

/// The version string, allocated once and never freed.
nonisolated(unsafe) private let versionText = CText.permanent(DeviceLoginVersion.string)

/// Runs `body`, turning a thrown failure into its status and message (at `errorOut`, when given).
private func guarded(_ errorOut: DLStringOut?, _ body: () throws(EmbeddedFailure) -> Void) -> Int32 {
    errorOut?.pointee = nil
    do {
        try body()
        return EmbeddedFailure.ok
    } catch {
        CText.report(error, to: errorOut)
        return error.status
    }
}

/// The client a handle points to, without taking ownership.
private func client(_ handle: OpaquePointer?) throws(EmbeddedFailure) -> EmbeddedClient {
    guard let handle else { throw .usage("the client is NULL") }
    return Unmanaged<EmbeddedClient>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

/// The output pointer `out`, cleared.
private func output(_ out: DLStringOut?, name: String) throws(EmbeddedFailure) -> DLStringOut {
    guard let out else { throw .usage("\(name) is NULL") }
    out.pointee = nil
    return out
}

/// Waits for `body` on the calling thread and rethrows its failure.
private func waiting<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws(EmbeddedFailure)
    -> Value
{
    try Handoff.waiting(for: body).get()
}

/// `const char *dl_version(void)`: the library's version; static.
@c(dl_version)
public func dlVersion() -> UnsafePointer<CChar> {
    versionText
}

/// `const char *dl_status_name(int)`: a status's name; static.
@c(dl_status_name)
public func dlStatusName(_ status: Int32) -> UnsafePointer<CChar> {
    let name: StaticString = EmbeddedFailure.name(of: status) ?? "DL_UNKNOWN"
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// `dl_client_new`: a client from the v1 JSON settings (``EmbeddedSettings``).
@c(dl_client_new)
public func dlClientNew(
    _ settings: UnsafePointer<CChar>?, _ length: Int, _ clientOut: UnsafeMutablePointer<OpaquePointer?>?,
    _ errorOut: DLStringOut?
) -> Int32 {
    guarded(errorOut) { () throws(EmbeddedFailure) in
        guard let clientOut else { throw .usage("client_out is NULL") }
        clientOut.pointee = nil
        let bytes = try CText.bytes(settings, length: length, limit: EmbeddedSettings.maximumBytes, name: "settings")
        let client = try EmbeddedClient(
            settings: try EmbeddedSettings(json: bytes), environment: ProcessInfo.processInfo.environment)
        clientOut.pointee = OpaquePointer(Unmanaged.passRetained(client).toOpaque())
    }
}

/// `dl_client_free`: releases a client; `DL_BUSY` while it signs in.
@c(dl_client_free)
public func dlClientFree(_ handle: OpaquePointer?) -> Int32 {
    guard let handle else { return EmbeddedFailure.ok }
    let unmanaged = Unmanaged<EmbeddedClient>.fromOpaque(UnsafeRawPointer(handle))
    guard !unmanaged.takeUnretainedValue().isSigningIn else { return ExitStatus.busy.rawValue }
    unmanaged.release()
    return EmbeddedFailure.ok
}

/// `dl_sign_in`: the device flow on the calling thread, its event lines to the callback there.
@c(dl_sign_in)
public func dlSignIn(
    _ handle: OpaquePointer?, _ callback: DLEventCallback?, _ context: UnsafeMutableRawPointer?,
    _ errorOut: DLStringOut?
) -> Int32 {
    guarded(errorOut) { () throws(EmbeddedFailure) in
        let client = try client(handle)
        let failure = client.signIn { line in
            guard let callback else { return nil }
            let answer = line.withCString { callback(context, $0, line.utf8.count) }
            guard answer == 0 else {
                return EmbeddedFailure(
                    status: ExitStatus.ioError.rawValue,
                    message: "the event callback returned \(answer): the sign-in was stopped")
            }
            return nil
        }
        if let failure { throw failure }
    }
}

/// `dl_cancel`: cancels the client's sign-in, from any thread.
@c(dl_cancel)
public func dlCancel(_ handle: OpaquePointer?) -> Int32 {
    guarded(nil) { () throws(EmbeddedFailure) in try client(handle).cancelSignIn() }
}

/// `dl_token`: a fresh access token, as `device-login token --min-ttl`.
@c(dl_token)
public func dlToken(
    _ handle: OpaquePointer?, _ minimumTTL: UInt32, _ tokenOut: DLStringOut?, _ errorOut: DLStringOut?
) -> Int32 {
    guarded(errorOut) { () throws(EmbeddedFailure) in
        let out = try output(tokenOut, name: "token_out")
        let client = try client(handle)
        guard minimumTTL <= 86_400 * 365 else { throw .usage("min_ttl_seconds must be at most a year (31536000)") }
        let lifetime = Duration.seconds(minimumTTL)
        // The fast path first, on this thread, as `device-login token`'s; the token state when it cannot answer.
        if let stored = client.storedToken(minimumTTL: lifetime) {
            try CText.give(stored, to: out)
        } else {
            try CText.give(try waiting { try await client.freshToken(minimumTTL: lifetime) }, to: out)
        }
    }
}

/// `dl_session_status`: the profile's status as v1 JSON, never a token.
@c(dl_session_status)
public func dlSessionStatus(_ handle: OpaquePointer?, _ jsonOut: DLStringOut?, _ errorOut: DLStringOut?) -> Int32 {
    guarded(errorOut) { () throws(EmbeddedFailure) in
        let out = try output(jsonOut, name: "json_out")
        let client = try client(handle)
        try CText.give(try waiting { try await client.status() }, to: out)
    }
}

/// `dl_sign_out`: revokes and removes the tokens, as `device-login logout`.
@c(dl_sign_out)
public func dlSignOut(_ handle: OpaquePointer?, _ errorOut: DLStringOut?) -> Int32 {
    guarded(errorOut) { () throws(EmbeddedFailure) in
        let client = try client(handle)
        try waiting { try await client.signOut() }
    }
}

/// `dl_string_free`: wipes and frees a string the library handed out.
@c(dl_string_free)
public func dlStringFree(_ string: UnsafeMutablePointer<CChar>?) {
    CText.free(string)
}
