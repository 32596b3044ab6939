import DeviceLogin
import DeviceLoginTesting

/// Many device flows at once against one in-process mock server, on the real clock: the load the benchmark
/// measures.
///
/// Every flow is a child task of one task group, all added at once; each asks for a device code and polls until
/// the mock approves it. Outcomes are tallied as they arrive, so nothing per flow outlives its task.
struct FlowLoad: Sendable {
    /// The server every flow talks to.
    let server: MockAuthorizationServer
    /// How many flows, how long the whole load may take.
    let options: BenchmarkOptions

    /// Creates the load and its server.
    ///
    /// The server records nothing (``MockAuthorizationServer/Recording/off``): it still enforces the RFC, counts
    /// violations and keeps each code's poll count, which is all the benchmark reads.
    init(options: BenchmarkOptions) {
        self.options = options
        server = MockAuthorizationServer(
            configuration: MockAuthorizationServer.Configuration(
                interval: options.interval,
                // Unsigned: the load measures polling, not signing. An HMAC now goes through libcrypto, whose
                // loading alone added 3.7 MB to the peak RSS before the first flow.
                idTokenSigning: .unsigned,
                recording: .off,
                maximumRecords: 0,
                defaultScript: .approve(afterPolls: options.approveAfterPolls)
            ),
            clock: ContinuousClock()
        )
    }

    /// Runs every flow and waits for all of them, or for the time limit, after which the rest are cancelled and
    /// counted as failed. Beside them, ``HeapSample`` watches the heap while every flow waits.
    /// - Returns: The tally of outcomes and the settled heap.
    /// - Throws: ``DeviceLoginError`` when the mock's endpoints cannot be built; `TransportError` when the
    ///   loopback server cannot start (`--transport curl`).
    func run() async throws -> LoadResult {
        switch options.transport {
        case .inprocess: return await measure(endpoints: try server.endpoints())
        case .curl: return try await runOverLoopback()
        }
    }

    /// Runs every flow against `endpoints` (see ``run()``).
    func measure(endpoints: ServerEndpoints) async -> LoadResult {
        // No flow can have its token before its code has been pending for `approveAfterPolls` intervals and one
        // more poll: until then (less a margin for the clock's reading), every flow is alive.
        let settledUntil =
            ContinuousClock().now + .seconds(options.interval * (options.approveAfterPolls + 1)) - .milliseconds(200)
        async let settled = HeapSample.settledBytes(server: server, flows: options.flows, until: settledUntil)
        let tally = await runWithinLimit(endpoints: endpoints)
        // A flow that failed (the time limit, an error) freed its state early: the window was not settled.
        let heap = await settled
        return LoadResult(tally: tally, settledHeapBytes: tally.failed == 0 ? heap : nil)
    }

    private func runWithinLimit(endpoints: ServerEndpoints) async -> FlowTally {
        let limit = options.effectiveTimeLimit
        return await withTaskGroup(of: FlowTally?.self) { group in
            group.addTask { await runFlows(endpoints: endpoints) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            var tally = FlowTally()
            while let finished = await group.next() {
                group.cancelAll()
                if let finished { tally = finished }
            }
            return tally
        }
    }

    /// Every flow in a discarding group, each adding its own outcome to the tally: a finished flow's task is freed at
    /// once. A group that hands results to a loop keeps each finished task, with the allocator slabs of its frames,
    /// until the loop takes its result, and the loop's task is queued behind the thousands of flows that a poll's
    /// wake-up resumes together: at 10,000 flows some 6,000 finished tasks (2.4 kB each) were waiting when the
    /// heap peaked, 4 MB above its level while every flow waited.
    private func runFlows(endpoints: ServerEndpoints) async -> FlowTally {
        let tally = Locked(FlowTally())
        await withDiscardingTaskGroup { group in
            for _ in 0..<options.flows {
                let flow = makeFlow(endpoints: endpoints)
                group.addTask { Self.add(await Self.run(flow), to: tally) }
            }
        }
        return tally.withLock { $0 }
    }

    /// Adds `outcome` to `tally`; out of line, so that the lock's work takes no room in the flow's frame.
    @inline(never)
    private static func add(_ outcome: FlowOutcome, to tally: Locked<FlowTally>) {
        tally.withLock { $0.add(outcome) }
    }

    /// One client's sign-in: its own flow value, as an application would make it, run to the end.
    ///
    /// Kept as small as it can be: every byte of an async frame here is multiplied by the number of flows, and
    /// the benchmark is meant to measure the engine's frames, not its own. Requests are counted by the server.
    private static func run(_ flow: DeviceFlow) async -> FlowOutcome {
        do {
            _ = try await flow.run()
            return FlowOutcome(failure: nil)
        } catch {
            return FlowOutcome(failure: Self.reason(error))
        }
    }

    /// The one client configuration of the load: an application has one, and makes a flow with it per sign-in.
    private static let client = ClientConfiguration(clientID: MockAuthorizationServer.Configuration.defaultClientID)

    private func makeFlow(endpoints: ServerEndpoints) -> DeviceFlow {
        DeviceFlow(
            endpoints: endpoints,
            client: Self.client,
            transport: options.transport == .inprocess ? InProcessTransport(server: server) : loopbackTransport(),
            clock: ContinuousClock()
        )
    }

    /// A short reason to group failures by; never a token or code.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as DeviceLoginError: return "\(error.code): \(error.message)"
        case is CancellationError: return "cancelled at the time limit"
        default: return String(describing: type(of: error))
        }
    }
}

/// What a load measured of itself: how its flows ended, and the heap while they all waited.
struct LoadResult: Sendable {
    var tally: FlowTally
    /// The fewest heap bytes in use seen while every flow had its code and none could have finished
    /// (``HeapSample``); nil when that window never opened.
    var settledHeapBytes: Int?
    /// The connections the loopback server accepted (`--transport curl`); nil in process.
    var connectionsOpened: Int?
    /// The most file descriptors open at once during the load (`--transport curl`); nil in process.
    var peakOpenDescriptors: Int?
}

/// How one flow ended.
struct FlowOutcome: Sendable {
    /// Why it failed; nil when it got a token.
    var failure: String?
}

/// Outcomes added up as they arrive.
struct FlowTally: Sendable {
    /// The most distinct failure reasons kept; further ones are counted under "other".
    static let maximumReasons = 16

    var succeeded = 0
    var failed = 0
    /// Failure reasons with their counts.
    var failures: [String: Int] = [:]

    /// How many flows ended.
    var flows: Int { succeeded + failed }

    mutating func add(_ outcome: FlowOutcome) {
        guard let reason = outcome.failure else {
            succeeded += 1
            return
        }
        failed += 1
        let key = failures[reason] != nil || failures.count < Self.maximumReasons ? reason : "other"
        failures[key, default: 0] += 1
    }
}
