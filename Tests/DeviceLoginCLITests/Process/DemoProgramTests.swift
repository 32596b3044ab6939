import Foundation
import Testing

@testable import DeviceLoginCLI

/// The module graph as built, and `device-login demo` handing over to `device-login-demo`, as separate processes.
@Suite("device-login-demo: the demo server's own program", .serialized, .timeLimit(.minutes(2)))
struct DemoProgramTests {
    /// The prefix of every mangled Swift name from the testing kit's module (symbols, type metadata).
    private static var testingKitMangledPrefix: Data { Data("18DeviceLoginTesting".utf8) }

    @Test("the binary users install links none of the testing kit; device-login-demo does")
    func moduleGraph() throws {
        let shipped = try Data(contentsOf: BinaryHarness.binary)
        #expect(
            shipped.range(of: Self.testingKitMangledPrefix) == nil,
            "device-login contains code of DeviceLoginTesting: something in it depends on the testing kit")
        // The same search finds the kit where it is linked, so a pass above is not a search that cannot match.
        let demo = try Data(contentsOf: BinaryHarness.demoBinary)
        #expect(demo.range(of: Self.testingKitMangledPrefix) != nil)
    }

    @Test("device-login demo: a whole sign-in against the server in device-login-demo; nothing saved")
    func signIn() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryHarness.run(
            ["demo", "--approve-after", "0", "--interval", "1", "--qr", "never"],
            environment: ["DEVICE_LOGIN_HOME": home.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Demo authorization server running at http://127.0.0.1:"))
        #expect(result.stderr.contains("(in this process).\nIt approves the code by itself after 0 s"))
        #expect(result.stdout.hasPrefix("Signed in to 127.0.0.1:"))
        #expect(result.stdout.hasSuffix(" as ada@example.test; the access token is valid for 1 h.\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    @Test("device-login demo --verification-uri: the real binary warns on stderr, naming both hosts")
    func mismatchedHost() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await BinaryHarness.run(
            [
                "demo", "--approve-after", "0", "--interval", "1", "--qr", "never", "--verification-uri",
                "https://evil.example/device",
            ],
            environment: ["DEVICE_LOGIN_HOME": home.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let warning = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("Warning:") })
        #expect(
            warning.hasPrefix(
                "Warning: The sign-in page is on evil.example, but this sign-in was started with 127.0.0.1"))
        #expect(result.stderr.contains("\nOpen this page in a browser: https://evil.example/device\n"))
        #expect(result.stderr.contains("\nOnly continue if you started this sign-in on "))
    }

    @Test("device-login demo --serve: the issuer on stdout, serves until Ctrl-C, then what it served; exit 0")
    func serve() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try BinaryHarness.start(
            ["demo", "--serve", "--approve-after", "0", "--interval", "1"],
            environment: [:])
        let issuer = try await firstLine(of: server)
        #expect(issuer.hasPrefix("http://127.0.0.1:"))
        let login = try await BinaryHarness.run(
            ["login", "--issuer", issuer, "--client-id", "test-client", "--qr", "never", "--no-store"],
            environment: ["DEVICE_LOGIN_HOME": home.path]
        )
        #expect(login.status == 0, "\(login.stderr)")
        // The process that now runs the server is the one started as device-login: Ctrl-C reaches it.
        server.process.interrupt()
        let served = try await server.finish()
        #expect(served.status == 0)
        #expect(served.stderr.hasPrefix("Demo authorization server at \(issuer) (client ID test-client)."))
        #expect(
            served.stderr.hasSuffix(
                "Served 1 device authorizations, 0 refreshes, 0 revocations; RFC 8628 violations seen: 0.\n"
            ))
    }

    @Test("without device-login-demo beside it (as after install.sh): a source build's, exit 127; --help works")
    func missing() async throws {
        let directory = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lonely = directory.appendingPathComponent("device-login")
        try FileManager.default.copyItem(at: BinaryHarness.binary, to: lonely)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: lonely.path)
        let result = try await BinaryHarness.run(
            ["demo", "--approve-after", "0"], environment: [:],
            executable: lonely)
        #expect(result.status == 127)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                device-login: the demo needs its server, device-login-demo, which is not installed: there is none at \
                \(directory.resolvingSymlinksInPath().appendingPathComponent("device-login-demo").path)
                hint: the demo comes with a source build, not with install.sh: in a clone of the repository run \
                `bash Scripts/demo.sh`, or `swift build --product device-login-demo` and put it beside device-login

                """)
        let help = try await BinaryHarness.run(["demo", "--help"], environment: [:], executable: lonely)
        #expect(help.status == 0)
        #expect(help.stdout == HelpText.command(DemoCommand.handOver))
    }

    /// The first line the process writes on stdout, once it is there (or all it wrote, if it ended first).
    private func firstLine(of running: BinaryHarness.Running) async throws -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = running.out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                let text = String(decoding: data, as: UTF8.self)
                continuation.resume(returning: String(text.prefix { $0 != "\n" }))
            }
        }
    }
}
