import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fast lane's table: which command answers on the lane, and how (each command's `fastAnswer`). Here, above
/// the commands, so that the lane's shared steps (``FastLane``) stay below them.
extension FastLane {
    /// Answers `arguments` (without the program name; after ``CLI/arguments(program:_:)``) when the lane can.
    /// - Returns: The exit code when it answered; nil when the full path must run.
    static func answer(_ arguments: [String], process: Process) -> ExitCode? {
        guard let answer = self.answer(to: arguments, process: process) else { return nil }
        do throws(ResultSink.WriteError) {
            try process.stdout.write(answer.text)
            return answer.code
        } catch {
            // As the full path reports an unwritten result.
            return ExitCode.unwritten(error, stderr: .fileDescriptor(2))
        }
    }

    /// The answer to `arguments`, written by no one yet (for `exec`, its command has run); nil when the full path
    /// must answer.
    static func answer(to arguments: [String], process: Process) -> Answer? {
        guard let name = arguments.first else { return nil }
        // ssh's words are not this parser's: the lane runs it, with or without an agent (it says so).
        if name == SSHCommand.name { return SSHCommand.fastAnswer(Array(arguments.dropFirst()), process: process) }
        // With an agent named, the helpers answer through it and never touch this host's own store (docs/agent.md).
        if let socket = AgentSocket.named(in: process.environment) {
            return AgentLane.answer(to: arguments, socket: socket, process: process)
        }
        let rest = Array(arguments.dropFirst())
        switch name {
        case TokenCommand.spec.name: return TokenCommand.fastAnswer(rest, process: process)
        case CurlConfigCommand.spec.name: return CurlConfigCommand.fastAnswer(rest, process: process)
        case KubectlCredentialCommand.name: return KubectlCredentialCommand.fastAnswer(rest, process: process)
        case GitCredentialCommand.name: return GitCredentialCommand.fastAnswer(rest, process: process)
        case DockerCredentialCommand.name: return DockerCredentialCommand.fastAnswer(rest, process: process)
        case ExecCommand.spec.name: return ExecCommand.fastAnswer(rest, process: process)
        default: return nil
        }
    }
}
