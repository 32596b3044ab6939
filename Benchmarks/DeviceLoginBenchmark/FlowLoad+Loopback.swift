import DeviceLogin
import DeviceLoginTesting

extension FlowLoad {
    /// The loopback server's bounds for `flows` flows: a place for every flow's connection and some to spare, the
    /// rest as the kit sets them (kept-alive connections, 30 s idle timeout, 100 requests per connection).
    static func loopbackLimits(flows: Int) -> LoopbackServer.Limits {
        LoopbackServer.Limits(maximumConnections: flows + 64)
    }

    /// `--transport curl`: serves the model on a ``LoopbackServer`` for the length of the load and sends every
    /// flow's requests through libcurl, counting the open descriptors beside it and the connections the server
    /// accepted after it.
    func runOverLoopback() async throws -> LoadResult {
        try await LoopbackServer.withRunning(model: server, limits: Self.loopbackLimits(flows: options.flows)) {
            loopback in
            // Binding moved the model's issuer to the listener: its endpoints now name it.
            let endpoints = try server.endpoints()
            var result = await withTaskGroup(of: LoopbackSample.self) { group in
                group.addTask { .descriptors(await OpenDescriptors.peak()) }
                group.addTask { .load(await measure(endpoints: endpoints)) }
                var result = LoadResult(tally: FlowTally())
                var peak: Int?
                while let sample = await group.next() {
                    switch sample {
                    case .load(let load):
                        result = load
                        group.cancelAll()
                    case .descriptors(let most):
                        peak = most
                    }
                }
                result.peakOpenDescriptors = peak
                return result
            }
            result.connectionsOpened = loopback.connectionsAccepted
            return result
        }
    }

    /// The transport of one flow over loopback HTTP: libcurl, with its defaults (one worker thread for the
    /// process, connections kept alive in its multi handle's cache).
    func loopbackTransport() -> any HTTPTransport {
        #if canImport(CCurl)
        CurlTransport()
        #else
        DefaultTransport.make()
        #endif
    }
}

/// What a child of the curl load's task group hands back.
private enum LoopbackSample: Sendable {
    case load(LoadResult)
    case descriptors(Int?)
}
