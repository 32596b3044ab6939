import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bad `--ca-file` or `--header` is a configuration error at start (78) or a usage error (64), before any request
/// — not a network failure at the first one.
@Suite("Start-up checks: --ca-file and --header before any request")
struct StartupCheckTests {
    private static let pem = """
        -----BEGIN CERTIFICATE-----
        MIIBszCCAVmgAwIBAgIUZXhhbXBsZS1jYS1mb3ItdGVzdHMwCgYIKoZIzj0EAwIw
        -----END CERTIFICATE-----

        """

    /// A directory with the files the cases point at.
    private struct Files {
        let directory: URL

        init() throws {
            directory = try BinaryHarness.temporaryHome()
            try write("ca.pem", Self.bundle(StartupCheckTests.pem))
            try write("empty.pem", Data())
            try write("key.pem", Data("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n".utf8))
            try write("huge.pem", Data(StartupCheckTests.pem.utf8) + Data(repeating: 0x41, count: 1 << 20))
            try write("binary.der", Data([0x30, 0x82, 0x01, 0xB3, 0x30, 0x82, 0x01, 0x59]))
            try FileManager.default.createDirectory(at: url("folder"), withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(at: url("link.pem"), withDestinationURL: url("ca.pem"))
            #expect(mkfifo(url("fifo").path, 0o600) == 0)
        }

        func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
        func path(_ name: String) -> String { url(name).path }
        func write(_ name: String, _ data: Data) throws { try data.write(to: url(name)) }
        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// A bundle as distributions ship it: comment lines before the first certificate.
        static func bundle(_ pem: String) -> Data {
            Data(("# Issuer: CN=Example Test CA\n# Label: \"Example\"\n" + pem).utf8)
        }
    }

    private static let login = ["login", "--issuer", "https://auth.example.test", "--client-id", "c", "--no-store"]

    @Test(
        "an unusable --ca-file: exit 78 with what is wrong, and no request",
        arguments: [
            ("missing.pem", "no such file"),
            ("folder", "is a directory"),
            ("fifo", "is not a regular file"),
            ("empty.pem", "holds no PEM certificate"),
            ("key.pem", "holds no PEM certificate"),
            ("binary.der", "holds no PEM certificate"),
            ("huge.pem", "is larger than 1 MiB"),
        ])
    func badCAFile(name: String, problem: String) async throws {
        let files = try Files()
        defer { files.remove() }
        let home = files.path("home")
        for words in [Self.login, ["token"], ["userinfo"], ["logout"]] {
            let transport = StubTransport()
            let result = await CLIHarness.run(
                words + ["--ca-file", files.path(name)],
                environment: ["DEVICE_LOGIN_HOME": home], transport: transport)
            #expect(result.code == .configuration, "\(words[0]): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("device-login: --ca-file \(files.path(name)) \(problem)"),
                "\(result.stderr)")
            #expect(result.stderr.contains("\nhint: "))
            #expect(transport.requests.isEmpty)
            #expect(result.stdout.isEmpty)
        }
        // From the environment too.
        let transport = StubTransport()
        let result = await CLIHarness.run(
            Self.login, environment: ["DEVICE_LOGIN_CA_FILE": files.path(name)],
            transport: transport)
        #expect(result.code == .configuration)
        #expect(transport.requests.isEmpty)
    }

    @Test("an unreadable --ca-file: exit 78 (not checkable as root, who reads every file)")
    func unreadableCAFile() async throws {
        guard geteuid() != 0 else { return }
        let files = try Files()
        defer { files.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: files.path("ca.pem"))
        let transport = StubTransport()
        let result = await CLIHarness.run(Self.login + ["--ca-file", files.path("ca.pem")], transport: transport)
        #expect(result.code == .configuration)
        #expect(result.stderr.contains("cannot be read"))
        #expect(transport.requests.isEmpty)
    }

    @Test("a PEM bundle, directly or through a symbolic link, passes: the sign-in goes on to its first request")
    func goodCAFile() async throws {
        let files = try Files()
        defer { files.remove() }
        for name in ["ca.pem", "link.pem"] {
            let transport = StubTransport()
            let result = await CLIHarness.run(Self.login + ["--ca-file", files.path(name)], transport: transport)
            #expect(result.code == .unavailable, "\(result.stderr)")
            #expect(transport.requests.count >= 1)
        }
    }

    @Test(
        "a header the tool sets itself or that changes the framing: exit 78, no request",
        arguments: [
            "Host: evil.example", "content-length: 0", "Transfer-Encoding: chunked", "Connection: close",
            "Keep-Alive: 5", "Upgrade: h2c", "TE: trailers", "Trailer: X", "Expect: 100-continue",
            "Proxy-Connection: keep-alive", "Authorization: Bearer x", "Proxy-Authorization: Basic eA==",
            "DPoP: x", "Content-Type: text/plain", "Accept: */*", "User-Agent: other",
        ])
    func refusedHeader(header: String) async {
        let transport = StubTransport()
        let result = await CLIHarness.run(Self.login + ["--header", header], transport: transport)
        #expect(result.code == .configuration, "\(result.stderr)")
        let name = String(header.prefix { $0 != ":" })
        #expect(result.stderr.hasPrefix("device-login: --header \(name) is not allowed: "), "\(result.stderr)")
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "a header that is not Name: value in plain ASCII: exit 64, no request",
        arguments: [
            "Naïve: x", "X-Tab\t: x", "X-Ok: bell\u{07}", "X-Ok: del\u{7F}", "X-Ok: \u{1B}[31mred", "(X): y",
        ])
    func malformedHeader(header: String) async {
        let transport = StubTransport()
        let result = await CLIHarness.run(Self.login + ["--header", header], transport: transport)
        #expect(result.code == .usage, "\(result.stderr)")
        #expect(transport.requests.isEmpty)
    }

    @Test("headers of our own making pass, and are sent; more than 64 are refused")
    func goodHeaders() async {
        let transport = StubTransport()
        let result = await CLIHarness.run(
            Self.login + ["--header", "X-Tenant: blue", "--header", "Cookie: a=b", "--header", "X_Odd.Name~1: ok\tx"],
            transport: transport
        )
        #expect(result.code == .unavailable, "\(result.stderr)")
        #expect(transport.requests.count >= 1)
        let many = (0...64).flatMap { ["--header", "X-\($0): v"] }
        let refused = await CLIHarness.run(Self.login + many, transport: StubTransport())
        #expect(refused.code == .usage)
        #expect(refused.stderr.hasPrefix("device-login: at most 64 --header options"))
    }
}
