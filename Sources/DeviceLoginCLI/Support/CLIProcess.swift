#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DeviceLogin
import DeviceLoginTerminal

/// The process shell around ``CLI/run(_:context:commands:)``: real streams, real time, the default transport, and
/// Ctrl-C. The only code that touches the real process; each executable's `main.swift` is one call to it.
package enum CLIProcess {
    /// Runs the tool with the process's arguments and exits with its exit code.
    /// - Parameter commands: The command table: ``CLI/commands``, or one whose `demo` runs the server.
    package static func run(_ commands: [CommandSpec]) async -> Never {
        let environment = ProcessInfo.processInfo.environment
        let terminal = TerminalCapabilities.detect(fileDescriptor: 2, environment: environment)
        let context = CLIContext(
            environment: environment,
            stdout: .fileDescriptor(1),
            stderr: .fileDescriptor(2),
            terminal: terminal,
            makeTransport: { DefaultTransport.make(options: $0) },
            clock: SystemTime.clock,
            now: SystemTime.now
        )

        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        let work = Task { await CLI.run(arguments, context: context, commands: commands) }

        let interrupts = InterruptHandler(
            cancelling: work, stderr: context.stderr, allowsEscapes: terminal.allowsEscapes
        )
        let code = await work.value
        withExtendedLifetime(interrupts) { exit(code.rawValue) }
    }
}
