import DeviceLogin
import Foundation
import Testing
@testable import DeviceLoginCLI

/// Store problems through the CLI (issue 8): a far time in a profile file reported instead of a crash.
@Suite("Store problems: status reads far times safely", .serialized, .timeLimit(.minutes(2)))
struct StoreProblemTests {
    // Issue 8, bug 1: a stored expires_at of ±1e300 or 9.3e18 made every later status trap (SIGILL).
    @Test("status of the binary on a profile file with a far time: exit 74 naming the file, never a signal",
          arguments: ["1e+300", "-1e+300", "9.3e+18", "9300000000000000000"])
    func farTimeInTheProfileFile(number: String) async throws {
        let home = try BinaryHarness.temporaryHome().path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let marker = 1_234_567_890.5
        let endpoints = ServerEndpoints(
            issuer: "https://auth.example.test", deviceAuthorization: try #require(URL(string: "https://a.test/d")),
            token: try #require(URL(string: "https://a.test/t"))
        )
        let profile = try Profile(endpoints: endpoints, clientID: "cli")
        let tokens = TokenSet(accessToken: "at-far", expiresAt: Date(timeIntervalSince1970: marker),
                              issuedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await FileTokenStore(directory: home).save(ProfileRecord(profile: profile, tokens: tokens))
        let path = home + "/default.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\(marker)"))
        let planted = text.replacingOccurrences(of: "\(marker)", with: number)
        try planted.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

        for arguments in [["status"], ["status", "--json"], ["token"]] {
            let result = try await BinaryHarness.run(arguments, environment: ["DEVICE_LOGIN_HOME": home])
            #expect(result.status == ExitCode.storage.rawValue, "\(arguments) with \(number): \(result.stderr)")
            #expect(result.stderr.contains("the token file \(path) is corrupt: tokens.expires_at is "))
            #expect(result.stderr.contains("mv \(path) \(path).bad"))
            #expect(result.stdout.isEmpty)
        }
    }
}
