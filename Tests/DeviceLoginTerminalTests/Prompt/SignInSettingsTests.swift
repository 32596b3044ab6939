import Testing

@testable import DeviceLoginTerminal

@Suite("SignInSettings")
struct SignInSettingsTests {
    @Test("Defaults: a QR code when it fits, medium error correction, this machine's name")
    func defaults() {
        let settings = SignInSettings(capabilities: Fixtures.pipe)
        #expect(settings.qrMode == .auto)
        #expect(settings.errorCorrection == .medium)
        #expect(settings.machineName == MachineName.current())
        #expect(SignInSettings(capabilities: Fixtures.pipe, machineName: nil).machineName == nil)
    }
}
