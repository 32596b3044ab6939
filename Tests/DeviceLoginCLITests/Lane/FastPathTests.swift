import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The path programs call on every run (`token` with a valid stored token) does no work it does not need: libcurl
/// is loaded only by a request, and a request without a usable libcurl fails cleanly (issue 9, "The fast path").
@Suite("Fast path")
struct FastPathTests {
    #if os(Linux)
    @Test func tokenWithAValidStoredTokenLoadsNoLibcurlOrLibqrencode() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        try await fixture.save(
            TokenSet(accessToken: "at-fast", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()))
        var environment = fixture.environment
        // The dynamic loader then reports on stderr every object it loads, at start-up or by dlopen.
        environment["LD_DEBUG"] = "files"

        let result = try await BinaryHarness.run(["token"], environment: environment)

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "at-fast\n")
        #expect(result.stderr.contains("file=libc.so.6"), "LD_DEBUG reported nothing: \(result.stderr)")
        #expect(!result.stderr.contains("libcurl"))
        #expect(!result.stderr.contains("libqrencode"))
    }

    /// A stored ID token and its verdict change nothing: `token` neither checks them nor loads libcrypto, and
    /// neither does a credential helper.
    @Test func tokenAndHelpersWithAVerifiedIDTokenLoadNoLibcrypto() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let now = Date()
        let idToken = try ProfileFixture.idToken([
            "iss": ProfileFixture.issuer, "aud": ProfileFixture.clientID, "sub": "s1",
            "iat": now.timeIntervalSince1970, "exp": now.timeIntervalSince1970 + 3600,
        ])
        let verdict = IDTokenVerification(
            outcome: .verified, algorithm: "RS256", keyID: "k1", tokenDigest: "digest", checkedAt: now
        )
        let record = try await fixture.save(
            TokenSet(
                accessToken: "at-fast", expiresAt: now.addingTimeInterval(3600), idToken: idToken, issuedAt: now,
                idTokenVerification: verdict))
        var bound = record
        bound.profile.bindings = [try URLBinding("https://git.example.test/")]
        try await FileTokenStore(directory: fixture.home.path).save(bound)
        var environment = fixture.environment
        environment["LD_DEBUG"] = "files"

        let token = try await BinaryHarness.run(["token"], environment: environment)
        #expect(token.status == 0, "stderr: \(token.stderr)")
        #expect(token.stdout == "at-fast\n")
        #expect(token.stderr.contains("file=libc.so.6"), "LD_DEBUG reported nothing: \(token.stderr)")
        #expect(!token.stderr.contains("libcrypto"), "token loaded libcrypto")

        let helper = try await ProcessHarness.run(
            ["git-credential", "get"], environment: environment,
            input: Data("protocol=https\nhost=git.example.test\npath=repo.git\n\n".utf8))
        #expect(helper.status == 0, "stderr: \(helper.stderr)")
        #expect(helper.stdout.contains("password=at-fast\n"), "\(helper.stdout)")
        #expect(!helper.stderr.contains("libcrypto"), "git-credential loaded libcrypto")
        #expect(!helper.stderr.contains("libcurl"))
    }

    @Test func aRequestWithoutAUsableLibcurlFailsWithExit69AndSaysWhatToInstall() async throws {
        let fixture = try ProfileFixture()
        defer { fixture.remove() }
        let now = Date()
        try await fixture.save(
            TokenSet(
                accessToken: "at-old", expiresAt: now.addingTimeInterval(-60), refreshToken: "rt-1",
                issuedAt: now.addingTimeInterval(-3600)))
        // A libcurl.so.4 that is not libcurl (a link to libc), found first through LD_LIBRARY_PATH.
        let libraries = fixture.home.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: libraries.appendingPathComponent("libcurl.so.4").path, withDestinationPath: try Self.libcPath())
        var environment = fixture.environment
        environment["LD_LIBRARY_PATH"] = libraries.path

        let result = try await BinaryHarness.run(["token"], environment: environment)

        #expect(result.status == ExitCode.unavailable.rawValue, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("libcurl (libcurl.so.4) could not be loaded: "))
        #expect(result.stderr.contains("undefined symbol: curl_global_init"))
        #expect(result.stderr.contains("install libcurl4"))
    }

    /// libqrencode is loaded on the first QR code, so a box without a usable one still signs in: the prompt says in
    /// one line why it draws no QR code, and says what to install.
    @Test func aSignInWithoutAUsableLibqrencodeDrawsNoQRCodeAndSaysWhy() async throws {
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        // A libqrencode.so.4 that is not libqrencode (a link to libc), found first through LD_LIBRARY_PATH.
        let libraries = home.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: libraries.appendingPathComponent("libqrencode.so.4").path, withDestinationPath: try Self.libcPath())

        let result = try await BinaryHarness.run(
            ["demo", "--approve-after", "0", "--interval", "1", "--qr", "always"],
            environment: ["DEVICE_LOGIN_HOME": home.path, "LD_LIBRARY_PATH": libraries.path]
        )

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("Signed in to 127.0.0.1:"))
        #expect(result.stderr.contains("QR code not shown: libqrencode (libqrencode.so.4) could not be loaded: "))
        #expect(result.stderr.contains("undefined symbol: QRcode_encodeString"))
        #expect(result.stderr.contains("install libqrencode4"))
        #expect(!result.stderr.contains("▀"), "a QR code was drawn: \(result.stderr)")
    }

    /// The file this process's C library was loaded from, from `/proc/self/maps`.
    private static func libcPath() throws -> String {
        // Read to the end: a /proc file has a size of 0, so a read sized by stat would find it empty.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps") else { throw CocoaError(.fileNoSuchFile) }
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let paths = maps.split(separator: "\n").compactMap { line in line.split(separator: " ").last.map(String.init) }
        guard let path = paths.first(where: { $0.hasPrefix("/") && $0.hasSuffix("/libc.so.6") }) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }
    #endif

    @Test func theEnvironmentIsReadAsGetenvReadsIt() throws {
        let environment = ProcessEnvironment.whole()

        #expect(!environment.isEmpty)
        for (name, value) in environment {
            #expect(getenv(name).map { String(cString: $0) } == value, "\(name)")
        }
        #expect(environment["PATH"] == ProcessInfo.processInfo.environment["PATH"])
    }
}
