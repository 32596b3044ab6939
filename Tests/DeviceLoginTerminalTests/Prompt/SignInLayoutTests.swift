import DeviceLogin
import Testing

@testable import DeviceLoginTerminal

/// The two layouts of a sign-in: made alike from one ``SignInSettings``, and saying the same words.
@Suite("SignInLayout")
struct SignInLayoutTests {
    @Test("The prompt and the kiosk screen are made from the same settings, by the same init")
    func sameSettings() {
        let prompt = PromptRenderer(capabilities: Fixtures.laptop, qrMode: .never, machineName: "kiosk-1")
        let screen = KioskScreen(capabilities: Fixtures.laptop, qrMode: .never, machineName: "kiosk-1")
        #expect(prompt.settings == screen.settings)
        #expect(
            prompt.settings
                == SignInSettings(
                    capabilities: Fixtures.laptop, qrMode: .never, errorCorrection: .medium, machineName: "kiosk-1"))
    }

    @Test("Each part of the settings reads and writes the settings")
    func forwarding() {
        var screen = KioskScreen(settings: SignInSettings(capabilities: Fixtures.pipe, machineName: nil))
        screen.qrMode = .always
        screen.errorCorrection = .low
        screen.machineName = "desk"
        screen.capabilities = Fixtures.serialConsole
        #expect(
            screen.settings
                == SignInSettings(
                    capabilities: Fixtures.serialConsole, qrMode: .always, errorCorrection: .low, machineName: "desk"))
        #expect(screen.capabilities == Fixtures.serialConsole && screen.qrMode == .always)
        #expect(screen.errorCorrection == .low && screen.machineName == "desk")
    }

    /// A sign-in page on a look-alike of the issuer's host, and a complete URI on a third host.
    private static let mismatched = Fixtures.authorization(
        verificationURI: "https://auth-example.com/device", completeURI: "https://evil.example/d?user_code=WDJB-MJHT"
    )

    @Test(
        "Both layouts show every paragraph of the one text, in its words",
        arguments: [Fixtures.authorization(), mismatched])
    func sameWords(authorization: DeviceAuthorization) {
        let settings = SignInSettings(capabilities: Fixtures.pipe, qrMode: .never, machineName: Fixtures.machineName)
        let prompt = PromptRenderer(settings: settings).render(authorization, secondsLeft: 840)
        let screen = KioskScreen(settings: settings).lines(
            for: authorization, secondsLeft: 840, state: .waiting, columns: 1000, rows: 40
        ).map { $0.trimmingPrefix(while: { $0 == " " }) }
        let words = SignInText(
            authorization, check: authorization.hostCheck, secondsLeft: 840, countdown: .words, settings: settings)
        for paragraph in words.paragraphs {
            #expect(prompt.contains(paragraph.text), "\(paragraph.text)")
            if paragraph.part != .countdown {
                #expect(screen.contains { $0 == paragraph.text }, "\(paragraph.text) in \(screen)")
            }
        }
        #expect(screen.contains("The code expires in 14:00.") && prompt.contains("The code expires in 14 min."))
    }

    @Test("A link that is not plain http(s): neither layout warns of its host")
    func refusedLinkWithoutWarnings() {
        let authorization = Fixtures.authorization(verificationURI: "ftp://evil.example/device", completeURI: nil)
        #expect(!authorization.hostCheck.warnings.isEmpty)
        let prompt = PromptRenderer(capabilities: Fixtures.laptop, machineName: Fixtures.machineName)
            .render(authorization, secondsLeft: 840)
        let screen = KioskScreen(capabilities: Fixtures.laptop, machineName: Fixtures.machineName)
            .lines(for: authorization, secondsLeft: 840, state: .waiting, columns: 120, rows: 40)
            .joined(separator: "\n")
        for text in [prompt, screen] {
            #expect(text.contains("Refused to show the sign-in address"))
            #expect(!text.contains("Warning:") && !text.contains("evil"))
        }
    }
}
