import DeviceLoginTestSupport
import Foundation
import Testing

@testable import DeviceLoginCLI

/// `device-login completion` and `help --man` from the built binary, as `Scripts/install.sh` runs them: only the
/// script or page on stdout, exit 0; exit 74 when stdout cannot be written.
@Suite("completion and help --man, the binary")
struct CompletionCommandTests {
    @Test("each script and the page, whole on stdout, nothing on stderr, exit 0")
    func output() async throws {
        for shell in CompletionScript.Shell.allCases {
            let result = try await ProcessHarness.run(["completion", shell.rawValue])
            #expect(result.status == 0)
            #expect(result.stdout == CompletionScript.render(shell, commands: CLI.commands))
            #expect(result.stderr.isEmpty)
        }
        let man = try await ProcessHarness.run(["help", "--man"])
        #expect(man.status == 0)
        #expect(man.stdout == ManPage.render(CLI.commands))
        #expect(man.stderr.isEmpty)
    }

    @Test(
        "a full device, a closed stdout: exit 74, said on stderr; a broken pipe: 141 by SIGPIPE, as git, quietly",
        arguments: [ProcessHarness.Output.full, .closed, .brokenPipe])
    func unwritable(output: ProcessHarness.Output) async throws {
        for words in [["completion", "zsh"], ["help", "--man"]] {
            let result = try await ProcessHarness.run(words, output: output)
            if case .brokenPipe = output {
                #expect(result.status == 141, "\(words): \(result.stderr)")
                #expect(result.stderr.isEmpty)
            } else {
                #expect(result.status == 74, "\(words): \(result.stderr)")
                #expect(result.stderr.hasPrefix("device-login: could not write the result to standard output"))
            }
        }
    }

    @Test("bash loads the binary's script with source <(…) and completes with it")
    func bashSourcesTheBinary() async throws {
        let code = """
            source <("$1" completion bash) || exit 9
            COMP_WORDS=(device-login token --m); COMP_CWORD=2; COMPREPLY=()
            _device_login
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", code, "bash", BinaryHarness.binary.path],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "--min-ttl\n")
    }
}
