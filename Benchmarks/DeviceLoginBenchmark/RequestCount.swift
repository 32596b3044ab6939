import DeviceLoginTesting

/// The requests the mock server received, counted on its side: every device authorization request, and every
/// poll with each device code it issued.
struct RequestCount: Sendable {
    /// All requests.
    var total = 0
    /// The fewest one device code saw: its device authorization request and its polls.
    var minimumPerFlow = 0
    /// The most one device code saw.
    var maximumPerFlow = 0

    /// Reads the counts from the server once the flows are over (it allocates a summary of every code, so the
    /// benchmark reads it after taking its memory figures).
    init(server: MockAuthorizationServer) {
        let polls = server.authorizations.map(\.pollCount)
        total = server.deviceAuthorizationRequestCount + polls.reduce(0, +)
        minimumPerFlow = polls.min().map { 1 + $0 } ?? 0
        maximumPerFlow = polls.max().map { 1 + $0 } ?? 0
    }
}
