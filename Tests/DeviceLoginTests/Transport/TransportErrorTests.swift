import Testing

@testable import DeviceLogin

@Suite("TransportError")
struct TransportErrorTests {
    @Test(
        "only DNS, connection and timeout failures are transient; each kind names itself",
        arguments: [
            (TransportError.Kind.dnsFailure, true, "dnsFailure"),
            (.connectionFailed, true, "connectionFailed"),
            (.timedOut, true, "timedOut"),
            (.tlsFailure, false, "tlsFailure"),
            (.certificateVerificationFailed, false, "certificateVerificationFailed"),
            (.responseTooLarge, false, "responseTooLarge"),
            (.insecureURL, false, "insecureURL"),
            (.invalidResponse, false, "invalidResponse"),
            (.other, false, "other"),
        ])
    func kinds(kind: TransportError.Kind, isTransient: Bool, name: String) {
        #expect(kind.isTransient == isTransient)
        #expect(kind.description == name)
    }

    @Test("a certificate that cannot be verified is a kind apart from other TLS failures")
    func verificationIsDistinct() {
        #expect(TransportError.Kind.certificateVerificationFailed != .tlsFailure)
    }
}
