/// The command line of `device-login-bench`: how many flows, how fast the mock server lets them poll, when it
/// approves, and how the figures are printed.
struct BenchmarkOptions: Sendable, Equatable {
    /// How many device flows run at once. Default 10,000.
    var flows = 10_000
    /// The polling interval the mock server sends and enforces, in seconds. Default 1.
    var interval = 1
    /// How many polls each code stays pending before the mock approves it. Default 3 (the 4th poll gets the
    /// token).
    var approveAfterPolls = 3
    /// The longest the flows may run, in seconds, before the rest are cancelled and counted as failed.
    /// Default: 60 s plus 10 times the time a flow should take.
    var timeLimit: Int?
    /// Whether to print one JSON object instead of the table.
    var json = false
    /// Whether to exit non-zero when a judged goal fails (`--check`).
    var check = false
    /// Which goals are judged (`--goals`): all of them, or only the counted ones, which the machine's load does not
    /// move (what CI checks).
    var goals = GoalSelection.all
    /// Whether `--help` was asked for.
    var help = false
    /// How the flows reach the mock server (`--transport`): in process (default), or over real HTTP.
    var transport = BenchmarkTransport.inprocess

    /// The time limit in force: the one given, or 60 s plus 10 times `interval × (approveAfterPolls + 1)`.
    var effectiveTimeLimit: Duration {
        .seconds(timeLimit ?? 60 + 10 * interval * (approveAfterPolls + 1))
    }

    static let usage = """
        Usage: device-login-bench [--flows N] [--interval S] [--approve-after-polls K] [--time-limit S] [--json]
                                  [--check] [--goals all|counted] [--transport inprocess|curl]

        Runs one flow alone (the floor: what the protocol's waits cost, measured in this run), then N device flows at
        once in this process against the testing kit's mock authorization server (in-process transport, real
        ContinuousClock), and prints wall time against the floor, CPU time, peak RSS (in all and per flow), the heap
        in use per flow while every flow waits, requests per flow, successes, failures and the RFC 8628 violations the
        mock counted, with PASS/FAIL per goal.

        Counted goals (the machine's load does not move them): every flow succeeds, no violation, every flow makes
        exactly 1 + K + 1 requests, and at most 3.7 kB of heap per flow (judged from 1000 flows on).
        Timed goals (they move with the load): wall time at most 1.1x the floor, peak RSS at most 50 MB, and its
        growth at most 4 kB per flow (judged from 10000 flows on). The peak RSS is the binary's as users run it when
        built as they get it (Scripts/build-release.sh --product device-login-bench): linked dynamically, the Swift
        runtime alone adds some 5 MB before the first flow.

        With --transport curl, every flow sends its requests through the real libcurl transport to the testing
        kit's loopback server on 127.0.0.1 (HTTP/1.1, kept-alive connections), and the report adds the open file
        descriptors at the peak and the connections the server accepted. Its goals: every flow succeeds, no
        violation, connections reused (at most one per flow plus one per retried request), wall time at most 1.15x
        the floor (one flow alone over the same transport), peak RSS at most 64 MB. Try it with --flows 1000.

          --flows N                How many flows run at once (default 10000).
          --interval S             The polling interval the server asks for, in seconds (default 1).
          --approve-after-polls K  Polls answered authorization_pending before approval (default 3).
          --time-limit S           Cancel what is still running after S seconds (default 60 + 10 x expected).
          --json                   Print one JSON object on stdout instead of the table.
          --check                  Exit 1 when a judged goal fails (else 0 whatever the goals say).
          --goals all|counted      Judge every goal (default), or only the counted ones (CI's check).
          --transport inprocess|curl
                                   In-process transport (default), or libcurl over loopback HTTP.
          --help                   Print this text.
        """

    /// Reads the arguments (without the program name).
    /// - Throws: ``UsageError`` for an unknown option, a missing value or a value out of range.
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var remaining = arguments[...]
        func number(_ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            guard let text = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
            guard let value = Int(text), range.contains(value) else {
                throw UsageError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--flows": options.flows = try number(argument, 1...1_000_000)
            case "--interval": options.interval = try number(argument, 1...60)
            case "--approve-after-polls": options.approveAfterPolls = try number(argument, 0...100)
            case "--time-limit": options.timeLimit = try number(argument, 1...86_400)
            case "--json": options.json = true
            case "--check": options.check = true
            case "--goals":
                guard let text = remaining.popFirst(), let selection = GoalSelection(rawValue: text) else {
                    throw UsageError("--goals must be all or counted")
                }
                options.goals = selection
            case "--transport":
                guard let text = remaining.popFirst(), let transport = BenchmarkTransport(rawValue: text) else {
                    throw UsageError("--transport must be inprocess or curl")
                }
                options.transport = transport
            case "--help", "-h": options.help = true
            default: throw UsageError("unknown option \(argument)")
            }
        }
        return options
    }
}

/// Which of the report's goals are judged.
enum GoalSelection: String, Sendable, Equatable, Encodable {
    /// Every goal, the timed ones included.
    case all
    /// Only the goals that count something (requests, failures, violations, heap bytes), which do not move with the
    /// machine's load.
    case counted
}

/// How the benchmark's flows reach the mock server.
enum BenchmarkTransport: String, Sendable, Equatable, Encodable {
    /// `InProcessTransport`: a function call into the model, no sockets.
    case inprocess
    /// `CurlTransport` to a `LoopbackServer` on 127.0.0.1: real HTTP/1.1 over kept-alive connections.
    case curl
}

/// A command line the benchmark cannot run with.
struct UsageError: Error, CustomStringConvertible {
    /// What is wrong, for standard error.
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
