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

// The process shell around `CLI.run`: real streams, real time, the default transport, and Ctrl-C.
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
let work = Task { await CLI.run(Array(CommandLine.arguments.dropFirst()), context: context) }

let interrupts = InterruptHandler(cancelling: work, stderr: context.stderr, allowsEscapes: terminal.allowsEscapes)
let code = await work.value
withExtendedLifetime(interrupts) { exit(code.rawValue) }
