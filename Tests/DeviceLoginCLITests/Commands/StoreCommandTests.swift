import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login store` and `login --store` through the binary: what is refused, with which exit code, and that a
/// refused move changes nothing. The moves themselves, on the real kernel keyring, are in Tests/e2e/test_stores_e2e.py.
@Suite("store: moving tokens between stores")
struct StoreCommandTests {
    static let refusals: [(arguments: [String], status: ExitCode, says: String)] = [
        (["store", "--to", "gnome"], .usage, "--to must be keyring, secret-service or file"),
        (["store"], .usage, "missing --to"),
        (["store", "--profile", "../x", "--to", "file"], .configuration, "profile"),
        (["login", "--store", "vault", "--issuer", "https://a.test", "--client-id", "c"], .usage, "--store must be"),
        (
            ["login", "--store", "keyring", "--no-store", "--issuer", "https://a.test", "--client-id", "c"], .usage,
            "cannot go with --no-store"
        ),
    ]

    @Test("a wrong word or combination is a usage error", arguments: refusals)
    func refused(arguments: [String], status: ExitCode, says: String) async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let run = try await BinaryHarness.run(arguments, environment: fixture.environment)
        #expect(run.status == status.rawValue, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(says), "\(run.stderr)")
    }

    @Test("a profile without tokens has nothing to move: 77 and the login command")
    func nothingToMove() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let missing = try await BinaryHarness.run(["store", "--to", "file"], environment: fixture.environment)
        #expect(missing.status == ExitCode.notSignedIn.rawValue)
        #expect(missing.stderr.contains("device-login login"), "\(missing.stderr)")
        try await fixture.save(nil)
        let signedOut = try await BinaryHarness.run(["store", "--to", "file"], environment: fixture.environment)
        #expect(signedOut.status == ExitCode.notSignedIn.rawValue)
    }

    @Test("a store that cannot be reached (no session bus) is refused, and the profile and its tokens stay put")
    func unreachableStoreChangesNothing() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        // No D-Bus session bus at all: no address, and no $XDG_RUNTIME_DIR/bus.
        var environment = fixture.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = ""
        environment["XDG_RUNTIME_DIR"] = fixture.home.path
        let now = Date()
        try await fixture.save(TokenSet(accessToken: "at-1", expiresAt: now.addingTimeInterval(3600), issuedAt: now))
        let path = fixture.home.appendingPathComponent("default.json")
        let before = try Data(contentsOf: path)
        let run = try await BinaryHarness.run(["store", "--to", "secret-service"], environment: environment)
        #expect(run.status == ExitCode.ioError.rawValue, "\(run.stderr)")
        #expect(run.stderr.contains("Secret Service"), "\(run.stderr)")
        #expect(run.stderr.contains("no D-Bus session bus"), "\(run.stderr)")
        #expect(try Data(contentsOf: path) == before)

        let already = try await BinaryHarness.run(["store", "--to", "file"], environment: environment)
        #expect(already.status == 0, "\(already.stderr)")
        #expect(already.stdout.contains("already rest in the profile's file"), "\(already.stdout)")
        let status = try await BinaryHarness.run(["status", "--json"], environment: environment)
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect((document?["profiles"] as? [[String: Any]])?.first?["token_store"] as? String == "file")
    }
}
