#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// device-login-bench: one flow alone (the floor), then many device flows at once against the in-process mock server;
// prints the figures and PASS/FAIL per goal. Exit status: 0 when the run completed (whatever the goals, unless
// --check), 1 when --check and a judged goal failed, or when the run itself could not be made, 2 for a bad command
// line.

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

let clock = ContinuousClock()
if options.transport == .curl {
    // Every connection costs two descriptors in this process (libcurl's end and the loopback server's).
    OpenDescriptors.raiseLimit()
}

/// Runs a load and times it.
func timed(_ load: FlowLoad) async -> (LoadResult, Duration) {
    let start = clock.now
    do {
        let result = try await load.run()
        return (result, start.duration(to: clock.now))
    } catch {
        printError("device-login-bench: \(error)")
        exit(1)
    }
}

// The floor: one flow alone on a server of its own, in this run, so that the load is judged against what the
// protocol's waits cost on this machine now, not against a figure taken on another day.
var single = options
single.flows = 1
let (_, floor) = await timed(FlowLoad(options: single))

let load = FlowLoad(options: options)
let before = ResourceUsage.current()
let baselineHeap = HeapSample.bytesInUse()
let (result, wallTime) = await timed(load)
let after = ResourceUsage.current()
let serverHeap = HeapSample.bytesInUse()

let report = BenchmarkReport(
    options: options,
    figures: BenchmarkReport.Figures(
        tally: result.tally, requestCount: RequestCount(server: load.server), wallTime: wallTime, floor: floor,
        before: before, after: after, baselineHeapBytes: baselineHeap, settledHeapBytes: result.settledHeapBytes,
        serverHeapBytes: serverHeap,
        rfcViolations: load.server.rfcViolations,
        connectionsOpened: result.connectionsOpened, peakOpenDescriptors: result.peakOpenDescriptors
    )
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
if options.check, !report.passed {
    printError("device-login-bench: a judged goal failed (--check)")
    exit(1)
}
