import DeviceLogin
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("DemoLauncher: device-login demo hands its command line over to device-login-demo")
struct DemoLauncherTests {
    /// A launcher whose process replacement only records the call and fails with `failure`.
    private func launcher(
        executable: String?, failure: Int32
    ) -> (launcher: DemoLauncher, calls: @Sendable () -> [[String]]) {
        let calls = Locked<[[String]]>([])
        let launcher = DemoLauncher(
            executablePath: { executable },
            replaceProcess: { path, arguments in
                calls.withLock { $0.append([path] + arguments) }
                return failure
            }
        )
        return (launcher, { calls.withLock { $0 } })
    }

    private func parse(_ words: [String]) throws -> ParsedOptions {
        try ArgumentParser.parse(
            words, options: DemoCommand.handOver.options, command: "demo",
            environment: ["DEVICE_LOGIN_INTERVAL": "2"])
    }

    @Test("the words go over as given (the environment goes by itself), to device-login-demo beside device-login")
    func handsOver() throws {
        let (launcher, calls) = launcher(executable: "/opt/bin/device-login", failure: EACCES)
        let (context, stdout, stderr) = CLIHarness.context()
        #expect(launcher.run(try parse(["--approve-after=5", "--json"]), context: context).rawValue == 126)
        let path = "/opt/bin/device-login-demo"
        #expect(calls() == [[path, path, "demo", "--approve-after=5", "--json"]])
        #expect(stdout().isEmpty)
        #expect(
            stderr() == "device-login: could not start the demo server \(path): "
                + String(cString: strerror(EACCES)) + "\n")
    }

    @Test("a missing device-login-demo: it comes with a source build, exit 127 (not found), not 69 (network)")
    func missing() throws {
        let (launcher, calls) = launcher(executable: "/usr/local/bin/device-login", failure: ENOENT)
        let (context, stdout, stderr) = CLIHarness.context()
        #expect(launcher.run(try parse([]), context: context).rawValue == 127)
        #expect(calls().count == 1)
        #expect(stdout().isEmpty)
        #expect(
            stderr() == """
                device-login: the demo needs its server, device-login-demo, which is not installed: there is none at \
                /usr/local/bin/device-login-demo
                hint: the demo comes with a source build, not with install.sh: in a clone of the repository run \
                `bash Scripts/demo.sh`, or `swift build --product device-login-demo` and put it beside device-login

                """)
    }

    @Test("device-login's demo --help lists 126 and 127 with what they mean; device-login-demo's does not")
    func exitCodesInHelp() {
        let help = HelpText.command(DemoCommand.handOver)
        #expect(help.contains("  126  device-login-demo is there but cannot be run\n"))
        #expect(help.contains("  127  the demo server, device-login-demo, is not beside device-login: it comes"))
        #expect(!HelpText.command(DemoCommand.serving { _ in throw CancellationError() }).contains("  127  "))
    }

    @Test("no executable path: nothing is started")
    func noExecutablePath() throws {
        let (launcher, calls) = launcher(executable: nil, failure: 0)
        let (context, _, stderr) = CLIHarness.context()
        #expect(launcher.run(try parse([]), context: context).rawValue == 127)
        #expect(calls().isEmpty)
        #expect(stderr().hasPrefix("device-login: cannot find where device-login itself is"))
    }

    @Test(
        "the program beside an executable",
        arguments: [
            ("/a/b/device-login", "/a/b/device-login-demo"),
            ("/device-login", "/device-login-demo"),
            ("/a b/c/dl", "/a b/c/device-login-demo"),
            ("device-login", "device-login-demo"),
        ])
    func besides(executable: String, expected: String) {
        #expect(DemoLauncher.path(besides: executable) == expected)
    }

    @Test("the running executable is found, as an absolute path")
    func currentPath() throws {
        let path = try #require(Executable.currentPath())
        #expect(path.hasPrefix("/"))
        #expect(access(path, X_OK) == 0)
    }
}
