import Testing

@testable import DeviceLoginCLI

/// `device-login ssh`'s plan: ssh's own options passed on, the host and command found, the forward added.
@Suite("SSHCommand: ssh's argv with the agent forwarded")
struct SSHCommandTests {
    private static let prefix = "DEVICE_LOGIN_AGENT_SOCK=/tmp/r.sock; export DEVICE_LOGIN_AGENT_SOCK; "
    private static let forward = ["-o", "ExitOnForwardFailure=yes", "-R", "/tmp/r.sock:/run/a.sock"]

    private static func plan(_ words: [String]) throws(UsageError) -> [String] {
        try SSHCommand.plan(words, socket: "/run/a.sock", remoteSocket: "/tmp/r.sock").arguments
    }

    @Test("a host alone: a login shell on a terminal")
    func hostAlone() throws {
        #expect(
            try Self.plan(["build.example.test"])
                == ["ssh"] + Self.forward + [
                    "-t", "--", "build.example.test", Self.prefix + #"exec "${SHELL:-/bin/sh}" -l"#,
                ])
    }

    @Test(
        "ssh's options are passed on, with their values, joined or apart",
        arguments: [
            (["-p", "2222", "h", "git", "pull"], ["-p", "2222"], "h", "git pull"),
            (["-p2222", "-v", "h", "ls"], ["-p2222", "-v"], "h", "ls"),
            (
                ["-vA", "-o", "BatchMode=yes", "-i", "/k", "u@h", "id"], ["-vA", "-o", "BatchMode=yes", "-i", "/k"],
                "u@h", "id"
            ),
            (["-Nl", "me", "h", "x"], ["-Nl", "me"], "h", "x"),
            (["--", "-h", "x"], [], "-h", "x"),
            (["h", "-p", "2"], [], "h", "-p 2"),
        ])
    func options(words: [String], options: [String], host: String, command: String) throws {
        #expect(try Self.plan(words) == ["ssh"] + options + Self.forward + ["--", host, Self.prefix + command])
    }

    @Test(
        "no host, a missing value or an option ssh does not have: a usage error",
        arguments: [
            ([], "give the host to connect to"),
            (["-v"], "give the host to connect to"),
            (["-p"], "ssh's -p needs a value"),
            (["-Z", "h"], "unknown ssh option '-Z'"),
        ])
    func refused(words: [String], message: String) {
        #expect(throws: UsageError(message, command: "ssh")) { try Self.plan(words) }
    }

    @Test("each remote path is new: /tmp/device-login-agent-<16 hex>.sock")
    func remotePath() {
        let first = SSHCommand.remoteSocketPath()
        #expect(first != SSHCommand.remoteSocketPath())
        #expect(first.hasPrefix("/tmp/device-login-agent-") && first.hasSuffix(".sock"))
        #expect(first.count == "/tmp/device-login-agent-".count + 16 + ".sock".count)
    }
}
