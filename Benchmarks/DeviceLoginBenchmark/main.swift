#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// device-login-bench: many device flows at once against the in-process mock server; prints the figures and
// PASS/FAIL per goal. Exit status: 0 when the run completed (whatever the goals), 2 for a bad command line,
// 1 when the run itself could not be made.

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("device-login-bench: \(error)\n\n\(BenchmarkOptions.usage)")
    exit(2)
}
if options.help {
    print(BenchmarkOptions.usage)
    exit(0)
}

let load = FlowLoad(options: options)
let clock = ContinuousClock()
let before = ResourceUsage.current()
let start = clock.now
let tally: FlowTally
do {
    tally = try await load.run()
} catch {
    printError("device-login-bench: \(error)")
    exit(1)
}
let wallTime = start.duration(to: clock.now)
let after = ResourceUsage.current()

let report = BenchmarkReport(
    options: options, tally: tally, requestCount: RequestCount(server: load.server), wallTime: wallTime,
    before: before, after: after, rfcViolations: load.server.rfcViolations
)
if options.json {
    do {
        print(try report.json())
    } catch {
        printError("device-login-bench: could not encode the report: \(error)")
        exit(1)
    }
} else {
    print(report.text)
}
