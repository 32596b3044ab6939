import DeviceLogin
import Testing

@testable import DeviceLoginC

@Suite("EmbeddedFailure: the statuses are the CLI's exit codes")
struct EmbeddedFailureTests {
    @Test(
        "each library error has the status device-login exits with",
        arguments: [
            (DeviceLoginError.Code.accessDenied, Int32(65)), (.expired, 66), (.transport, 69), (.oauth, 76),
            (.invalidResponse, 76), (.invalidIDToken, 76), (.sessionEnded, 77), (.noSession, 77), (.storage, 74),
            (.discovery, 78), (.insecureEndpoint, 78), (.configuration, 78),
        ])
    func status(code: DeviceLoginError.Code, status: Int32) {
        #expect(EmbeddedFailure(DeviceLoginError(code, "m")).status == status)
    }

    @Test("a cancelled task is DL_CANCELLED (130); the message keeps the hint")
    func cancelledAndHint() {
        #expect(EmbeddedFailure(CancellationError()) == .cancelled)
        #expect(EmbeddedFailure.cancelled.status == 130)
        let failure = EmbeddedFailure(DeviceLoginError(.storage, "cannot write", hint: "check the folder"))
        #expect(failure.message == "cannot write (check the folder)")
    }

    @Test("every status has the name the header gives it; others have none")
    func names() {
        let names: [Int32: String] = [
            0: "DL_OK", 1: "DL_FAILURE", 64: "DL_USAGE", 65: "DL_DENIED", 66: "DL_EXPIRED", 69: "DL_UNAVAILABLE",
            74: "DL_IO", 75: "DL_BUSY", 76: "DL_PROTOCOL", 77: "DL_NOT_SIGNED_IN", 78: "DL_CONFIGURATION",
            130: "DL_CANCELLED",
        ]
        for (status, name) in names {
            #expect(EmbeddedFailure.name(of: status).map { "\($0)" } == name)
        }
        #expect(EmbeddedFailure.name(of: 2) == nil)
        #expect(EmbeddedFailure.name(of: -1) == nil)
    }
}
