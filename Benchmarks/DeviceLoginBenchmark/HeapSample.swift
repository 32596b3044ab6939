import CHeapUsage
import DeviceLoginTesting

/// The heap's bytes in use while every flow is alive and waiting: the memory a flow costs, counted so that the
/// machine's load does not move it.
///
/// Peak RSS moves with the load (issue 19 measured 87 MB and 126 MB for the same binary): it counts pages that a
/// burst of transient allocations touched, and how many bursts overlap depends on how the threads were scheduled.
/// The bytes the allocator has handed out and not taken back, sampled while every flow has its device code and none
/// can have finished, do not: each flow then holds exactly its settled state (its task's frames, its authorization,
/// the mock's record of its code), and transient allocations only add. So the sampler keeps the *fewest* bytes seen
/// in that window.
struct HeapSample: Sendable {
    /// The bytes in use now (`mallinfo2`: every arena plus mmapped chunks); nil where the C library has no count.
    static func bytesInUse() -> Int? {
        let bytes = dl_heap_bytes_in_use()
        return bytes >= 0 ? Int(bytes) : nil
    }

    /// How often the sampler looks: some 35 times while the flows wait. `mallinfo2` walks every free chunk of every
    /// arena with the arena's lock held, which stops the flows' allocations meanwhile: at 10,000 flows each call took
    /// about 0.8 ms, and every 10 ms they took 12 % of the run's CPU time and stretched its wall time.
    static let period = Duration.milliseconds(100)

    /// Samples the heap from the moment the server has issued `flows` device codes until `deadline`, the earliest any
    /// flow can get its token, and returns the fewest bytes in use seen.
    /// - Returns: nil when the codes were not all issued before the deadline (the window never opened), where the C
    ///   library has no count, or when cancelled first.
    static func settledBytes(
        server: MockAuthorizationServer, flows: Int, until deadline: ContinuousClock.Instant
    ) async -> Int? {
        let clock = ContinuousClock()
        var fewest: Int?
        while clock.now < deadline, !Task.isCancelled {
            if server.deviceAuthorizationRequestCount >= flows, let bytes = bytesInUse() {
                fewest = min(fewest ?? bytes, bytes)
            }
            try? await Task.sleep(for: period)
        }
        return Task.isCancelled ? nil : fewest
    }
}
