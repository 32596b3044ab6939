import DeviceLogin
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ExitCode: each failure has its own code")
struct ExitCodeTests {
    @Test(
        "library errors map to documented codes",
        arguments: [
            (DeviceLoginError.Code.accessDenied, ExitCode.denied),
            (.expired, .expired),
            (.transport, .unavailable),
            (.oauth, .protocolError),
            (.invalidResponse, .protocolError),
            (.sessionEnded, .notSignedIn),
            (.noSession, .notSignedIn),
            (.storage, .ioError),
            (.configuration, .configuration),
            (.insecureEndpoint, .configuration),
            (.discovery, .configuration),
        ])
    func mapping(code: DeviceLoginError.Code, expected: ExitCode) {
        #expect(ExitCode(DeviceLoginError(code, "m")) == expected)
    }

    @Test("a discovery failure caused by the network is a network failure")
    func discoveryNetwork() {
        let error = DeviceLoginError(.discovery, "m", transportError: TransportError(.connectionFailed, "refused"))
        #expect(ExitCode(error) == .unavailable)
    }

    @Test("the codes are distinct and sysexits-compatible")
    func distinct() {
        let values = ExitCode.allCases.map(\.rawValue)
        #expect(Set(values).count == values.count)
        #expect(ExitCode.usage.rawValue == 64)
        #expect(ExitCode.cancelled.rawValue == 130)
    }

    @Test(
        "a signal's code is 128 + its number; a signal the tool does not handle has none",
        arguments: [
            (SIGHUP, ExitCode.hangUp as ExitCode?), (SIGINT, .cancelled), (SIGQUIT, .quit), (SIGTERM, .terminated),
            (SIGUSR1, nil), (SIGKILL, nil),
        ])
    func signals(signal: Int32, expected: ExitCode?) {
        #expect(ExitCode(stoppedBy: signal) == expected)
        if let expected { #expect(expected.rawValue == 128 + signal) }
    }
}
