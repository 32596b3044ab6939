#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The figures of one run and the goals they are held to, printed as a table or as JSON.
struct BenchmarkReport: Encodable {
    /// The largest peak resident set that passes, in bytes: 50 MB (issue 19).
    static let peakResidentGoalBytes = 50_000_000
    /// The largest growth of the resident set per flow that passes, in bytes: 4 kB (issue 19).
    static let peakResidentPerFlowGoalBytes = 4_000
    /// The fewest flows for which the per-flow RSS goal is judged: the default load. With fewer, the run's fixed costs
    /// (threads, heap arenas) weigh more per flow — 9.5 kB at 1,000 flows — and the figure says little of frames.
    static let perFlowGoalMinimumFlows = 10_000
    /// The most wall time a load may take, as a multiple of the floor measured in the same run.
    static let wallToFloorGoal = 1.1
    /// The most heap bytes in use per waiting flow that passes (``HeapSample``): the engine's frames and its polling
    /// state, and the mock's record of the code (about 0.4 kB while the flows wait; 1.2 kB once they end, with the
    /// tokens it issued). Measured at 3.4 kB (3,443–3,450 bytes) in each of 10 runs of 2,000 flows (4.1 kB before
    /// a waiting flow kept only its device code instead of its poll's request, the endpoints and the client
    /// configuration were shared by the flows made from them, and the mock kept references to its records in its
    /// tables; 5.4 kB before the polling state was boxed: two allocator slabs per waiting task instead of three;
    /// 6.6 kB before `SleepQueue` and the out-of-line errors). A lost frame-size optimisation in `DeviceFlow` costs
    /// a 1 kB allocator slab per flow, and `Task.sleep` instead of ``SleepQueue`` 1 kB more, so either fails here.
    static let heapPerFlowGoalBytes = 3_700
    /// The fewest flows for which the heap-per-flow goal is judged: below that the allocator's own bookkeeping weighs
    /// more per flow.
    static let heapGoalMinimumFlows = 1_000
    /// `--transport curl`: the most wall time, as a multiple of the floor (one flow alone over the same transport).
    static let curlWallToFloorGoal = 1.15
    /// `--transport curl`: the largest peak resident set that passes, in bytes: 64 MB (issue 19).
    static let curlPeakResidentGoalBytes = 64_000_000

    /// What a goal measures.
    enum GoalKind: String, Encodable {
        /// A count that the machine's load does not move: requests, failures, violations, heap bytes in use.
        case counted
        /// A time, or a figure such as peak RSS that moves with the load.
        case timed
    }

    /// One goal and whether the run met it.
    struct Goal: Encodable {
        var name: String
        var measured: String
        var passed: Bool
        /// Whether it counts something the machine's load does not move (`counted`), or times or measures
        /// something it does (`timed`).
        var kind: GoalKind
        /// Whether this run judges it (`--goals counted` leaves the timed ones unjudged).
        var judged: Bool
    }

    var flows: Int
    /// How the flows reached the mock server: `inprocess` or `curl`.
    var transport: BenchmarkTransport
    var intervalSeconds: Int
    var approveAfterPolls: Int
    var wallSeconds: Double
    /// One flow alone, timed in this run before the load: what the protocol's waits cost on this machine now.
    var floorSeconds: Double
    /// `wallSeconds / floorSeconds`.
    var wallToFloor: Double
    var cpuSeconds: Double
    var userSeconds: Double
    var systemSeconds: Double
    var peakRSSBytes: Int
    /// The resident set just before the flows started: the process, the runtime and the server's empty state.
    var baselineRSSBytes: Int
    /// How much the resident set grew during the flows, per flow: `(peakRSSBytes - baselineRSSBytes) / flows`.
    var peakRSSPerFlowBytes: Int
    /// The heap's bytes in use just before the flows started.
    var baselineHeapBytes: Int?
    /// The fewest heap bytes in use while every flow waited (``HeapSample``).
    var settledHeapBytes: Int?
    /// `(settledHeapBytes - baselineHeapBytes) / flows`.
    var heapPerFlowBytes: Int?
    /// Of that, what the mock server still holds per flow once every flow has ended (its record of each code and
    /// the tokens it issued): `(heap after the flows - baselineHeapBytes) / flows`. The rest is the client's.
    var serverHeapPerFlowBytes: Int?
    var requests: Int
    var requestsPerFlow: Double
    var minimumRequestsPerFlow: Int
    var maximumRequestsPerFlow: Int
    var succeeded: Int
    var failed: Int
    var failures: [String: Int]
    var rfcViolations: Int
    /// The connections the loopback server accepted (`--transport curl` only).
    var connectionsOpened: Int?
    /// The most file descriptors open at once during the load, from `/proc/self/fd` (`--transport curl` only).
    var peakOpenDescriptors: Int?
    var goals: [Goal]
    /// Whether every judged goal passed.
    var passed: Bool

    /// The figures of one run, as `main.swift` gathers them.
    struct Figures {
        var tally: FlowTally
        var requestCount: RequestCount
        var wallTime: Duration
        var floor: Duration
        var before: ResourceUsage
        var after: ResourceUsage
        var baselineHeapBytes: Int?
        var settledHeapBytes: Int?
        var serverHeapBytes: Int?
        var rfcViolations: Int
        var connectionsOpened: Int? = nil
        var peakOpenDescriptors: Int? = nil
    }

    /// Builds the report and judges the goals.
    init(options: BenchmarkOptions, figures: Figures) {
        let (tally, before, after) = (figures.tally, figures.before, figures.after)
        flows = options.flows
        transport = options.transport
        connectionsOpened = figures.connectionsOpened
        peakOpenDescriptors = figures.peakOpenDescriptors
        intervalSeconds = options.interval
        approveAfterPolls = options.approveAfterPolls
        wallSeconds = figures.wallTime.seconds
        floorSeconds = figures.floor.seconds
        wallToFloor = floorSeconds > 0 ? wallSeconds / floorSeconds : 0
        cpuSeconds = (after.cpuTime - before.cpuTime).seconds
        userSeconds = (after.userTime - before.userTime).seconds
        systemSeconds = (after.systemTime - before.systemTime).seconds
        peakRSSBytes = after.peakResidentBytes
        baselineRSSBytes = before.residentBytes
        peakRSSPerFlowBytes = options.flows > 0 ? max(0, peakRSSBytes - baselineRSSBytes) / options.flows : 0
        baselineHeapBytes = figures.baselineHeapBytes
        settledHeapBytes = figures.settledHeapBytes
        if let baseline = baselineHeapBytes, let settled = settledHeapBytes, options.flows > 0 {
            heapPerFlowBytes = max(0, settled - baseline) / options.flows
            serverHeapPerFlowBytes = figures.serverHeapBytes.map { max(0, $0 - baseline) / options.flows }
        }
        let requestCount = figures.requestCount
        requests = requestCount.total
        requestsPerFlow = tally.flows > 0 ? Double(requestCount.total) / Double(tally.flows) : 0
        minimumRequestsPerFlow = requestCount.minimumPerFlow
        maximumRequestsPerFlow = requestCount.maximumPerFlow
        succeeded = tally.succeeded
        failed = tally.failed
        failures = tally.failures
        rfcViolations = figures.rfcViolations
        goals = []
        passed = false
        judgeGoals(options: options)
        passed = goals.allSatisfy { $0.passed || !$0.judged }
    }

    private mutating func judgeGoals(options: BenchmarkOptions) {
        func add(_ kind: GoalKind, _ name: String, _ measured: String, _ passed: Bool) {
            let judged = options.goals == .all || kind == .counted
            goals.append(Goal(name: name, measured: measured, passed: passed, kind: kind, judged: judged))
        }
        add(.counted, "all \(flows) flows succeed", "\(succeeded) succeeded", succeeded == flows)
        add(.counted, "0 RFC violations", "\(rfcViolations)", rfcViolations == 0)
        let inProcess = transport == .inprocess
        if inProcess {
            judgeInProcessCountedGoals(add)
        } else {
            // A request beyond the 1 + K + 1 each flow needs is a retry (the engine's, after a connection failed);
            // each may have needed a new connection.
            let retries = max(0, requests - flows * (2 + approveAfterPolls))
            add(
                .counted, "connections reused (<= \(flows) flows + \(retries) retries)",
                connectionsOpened.map { "\($0) opened" } ?? "not counted",
                (connectionsOpened ?? Int.max) <= flows + retries)
        }
        let wallGoal = inProcess ? Self.wallToFloorGoal : Self.curlWallToFloorGoal
        let residentGoal = inProcess ? Self.peakResidentGoalBytes : Self.curlPeakResidentGoalBytes
        add(
            .timed, "wall time <= \(format(wallGoal, digits: 2))x the floor",
            format(wallToFloor, digits: 2) + "x", wallToFloor <= wallGoal)
        add(
            .timed, "peak RSS <= " + Self.megabytes(residentGoal), Self.megabytes(peakRSSBytes),
            peakRSSBytes <= residentGoal)
        if inProcess, flows >= Self.perFlowGoalMinimumFlows {
            add(
                .timed, "peak RSS per flow <= " + Self.kilobytes(Self.peakResidentPerFlowGoalBytes),
                Self.kilobytes(peakRSSPerFlowBytes), peakRSSPerFlowBytes <= Self.peakResidentPerFlowGoalBytes)
        }
    }

    /// The in-process load's counted goals beyond the first two: exact requests per flow, and heap per flow. (Over
    /// real HTTP a failed connection adds a retry, and libcurl's buffers join the heap: neither is judged there.)
    private func judgeInProcessCountedGoals(_ add: (GoalKind, String, String, Bool) -> Void) {
        let expected = 2 + approveAfterPolls
        add(
            .counted, "every flow makes \(expected) requests (1 + \(approveAfterPolls) pending + 1)",
            "min \(minimumRequestsPerFlow), max \(maximumRequestsPerFlow)",
            minimumRequestsPerFlow == expected && maximumRequestsPerFlow == expected)
        if flows >= Self.heapGoalMinimumFlows {
            add(
                .counted, "heap per waiting flow <= " + Self.kilobytes(Self.heapPerFlowGoalBytes),
                heapPerFlowBytes.map(Self.kilobytes) ?? "not measured",
                heapPerFlowBytes.map { $0 <= Self.heapPerFlowGoalBytes } ?? false)
        }
    }

    /// The figures as a table, with PASS or FAIL per goal.
    var text: String {
        let judged = flows >= Self.perFlowGoalMinimumFlows ? "" : "; judged from \(Self.perFlowGoalMinimumFlows) flows"
        let how =
            transport == .curl
            ? "libcurl over kept-alive HTTP/1.1 to the loopback server, ContinuousClock"
            : "in-process mock, ContinuousClock"
        var lines = [
            "device-login-bench: \(flows) concurrent device flows, interval \(intervalSeconds) s, approval after "
                + "\(approveAfterPolls) polls (\(how))",
            row(
                "wall time",
                format(wallSeconds, digits: 2) + " s (" + format(wallToFloor, digits: 2) + "x the floor: one flow "
                    + "alone, " + format(floorSeconds, digits: 2) + " s)"),
            row(
                "CPU time",
                format(cpuSeconds, digits: 2) + " s (user " + format(userSeconds, digits: 2)
                    + " s, sys " + format(systemSeconds, digits: 2) + " s)"),
            row(
                "peak RSS",
                Self.megabytes(peakRSSBytes) + " (" + Self.megabytes(baselineRSSBytes)
                    + " before the flows)"),
            row(
                "peak RSS per flow",
                Self.kilobytes(peakRSSPerFlowBytes) + " (the growth during the flows / "
                    + "\(flows)\(judged))"),
            row("heap per flow", heapText),
            row(
                "requests per flow",
                format(requestsPerFlow, digits: 2) + " (min \(minimumRequestsPerFlow), max "
                    + "\(maximumRequestsPerFlow); \(requests) in all)"),
            row("succeeded", "\(succeeded)"),
            row("failed", "\(failed)"),
        ]
        for (reason, count) in failures.sorted(by: { $0.value > $1.value }) {
            lines.append("    \(count) x \(reason)")
        }
        lines.append(row("RFC violations", "\(rfcViolations)"))
        if transport == .curl {
            lines.append(row("open descriptors", peakOpenDescriptors.map { "\($0) at the peak" } ?? "not counted"))
            lines.append(
                row(
                    "connections opened",
                    connectionsOpened.map { "\($0) (counted by the loopback server)" } ?? "not counted"))
        }
        lines.append("goals")
        for goal in goals {
            let verdict = !goal.judged ? "----" : goal.passed ? "PASS" : "FAIL"
            let kind = goal.judged ? "" : ", not judged: --goals counted"
            lines.append("  " + verdict + "  " + goal.name + " (" + goal.measured + kind + ")")
        }
        return lines.joined(separator: "\n")
    }

    /// The heap line: bytes in use per waiting flow, and the two readings it comes from.
    private var heapText: String {
        guard let perFlow = heapPerFlowBytes, let settled = settledHeapBytes, let baseline = baselineHeapBytes else {
            return "not measured (no mallinfo2, or the flows were not all waiting before the first could finish)"
        }
        let server = serverHeapPerFlowBytes.map { "; the mock server keeps " + Self.kilobytes($0) + " after" } ?? ""
        return Self.kilobytes(perFlow) + " (in use while every flow waited: " + Self.megabytes(settled) + ", "
            + Self.megabytes(baseline) + " before the flows" + server + ")"
    }

    /// The report as one JSON object with sorted keys.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    private func row(_ name: String, _ value: String) -> String {
        "  " + name + String(repeating: " ", count: max(1, 20 - name.count)) + value
    }

    private func format(_ value: Double, digits: Int) -> String {
        let scale = Double((0..<digits).reduce(1) { product, _ in product * 10 })
        let rounded = (value * scale).rounded() / scale
        let text = String(rounded)
        let decimals = text.split(separator: ".").dropFirst().first?.count ?? 0
        return decimals >= digits ? text : text + String(repeating: "0", count: digits - decimals)
    }

    private static func megabytes(_ bytes: Int) -> String {
        tenths(bytes, per: 1_000_000) + " MB"
    }

    private static func kilobytes(_ bytes: Int) -> String {
        tenths(bytes, per: 1000) + " kB"
    }

    /// `bytes / unit`, rounded to one decimal.
    private static func tenths(_ bytes: Int, per unit: Int) -> String {
        let tenths = (bytes + unit / 20) / (unit / 10)
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
