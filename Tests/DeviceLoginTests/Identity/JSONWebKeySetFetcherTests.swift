import DeviceLoginTesting
import Foundation
import Testing

@testable import DeviceLogin

@Suite struct JSONWebKeySetFetcherTests {
    static let url = URL(string: "https://auth.example.com/jwks")

    func fetch(_ reply: @escaping ScriptedTransport.Reply, url: URL? = url) async throws -> JSONWebKeySet {
        let transport = ScriptedTransport([reply])
        let fetcher = JSONWebKeySetFetcher(transport: transport, headers: [HTTPHeader("X-Tenant", "t1")])
        return try await fetcher.fetch(try #require(url))
    }

    @Test func getsTheSetWithTheClientsHeaders() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"keys":[]}"#)])
        let fetcher = JSONWebKeySetFetcher(transport: transport, headers: [HTTPHeader("X-Tenant", "t1")])
        #expect(try await fetcher.fetch(try #require(Self.url)).keys.isEmpty)
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("X-Tenant") == "t1")
    }

    // Issue 17: a slow jwks_uri held `login` 30 s after the tokens arrived, and every `status` 30 s.
    @Test(
        "a key set that does not come within the fetcher's own time-out (5 s, virtual time) is a transport error",
        .timeLimit(.minutes(1)))
    func aHangingKeySetTimesOut() async throws {
        let clock = ManualClock()
        let cancelled = Locked(false)
        let transport = ScriptedTransport([
            { _ in
                do {
                    // Hangs until the fetcher gives up and cancels it.
                    try await Task.sleep(for: .seconds(86_400))
                } catch {
                    cancelled.withLock { $0 = true }
                    throw error
                }
                return HTTPResponse(status: 200)
            }
        ])
        let fetcher = JSONWebKeySetFetcher(transport: transport, clock: clock)
        #expect(fetcher.timeout == JSONWebKeySetFetcher.defaultTimeout)
        #expect(JSONWebKeySetFetcher.defaultTimeout == .seconds(5))
        let url = try #require(Self.url)
        let fetching = Task { try await fetcher.fetch(url) }
        // Without a time-out of its own the fetch would hang: the test's time limit then ends it, and fails it.
        let error = await withTaskCancellationHandler {
            await clock.sleepers(atLeast: 1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(5))])
            clock.advance(by: .seconds(5))
            return await expectError(.transport) { _ = try await fetching.value }
        } onCancel: {
            fetching.cancel()
        }
        #expect(error?.message.contains("within 5 seconds") == true, "\(String(describing: error?.message))")
        #expect(cancelled.withLock { $0 }, "the request was not cancelled")
    }

    @Test(arguments: [404, 500, 503])
    func anErrorStatusIsATransportError(status: Int) async {
        let error = await expectError(.transport) { _ = try await fetch(ScriptedTransport.status(status)) }
        #expect(error?.message.contains("answered HTTP \(status)") == true)
    }

    @Test func aBodyThatIsNotAKeySetIsAnInvalidResponse() async {
        for body in ["<html>", #"{"keys":"none"}"#, "[]"] {
            _ = await expectError(.invalidResponse) { _ = try await fetch(ScriptedTransport.json(body)) }
        }
        let huge = #"{"keys":[],"x":""# + String(repeating: "a", count: JSONWebKeySet.maximumBytes) + #""}"#
        let error = await expectError(.invalidResponse) { _ = try await fetch(ScriptedTransport.json(huge)) }
        #expect(error?.message.contains("larger than 256 KiB") == true)
    }

    @Test func plainHTTPToAnotherHostIsRefusedUnsent() async {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"keys":[]}"#)])
        _ = await expectError(.insecureEndpoint) {
            _ = try await JSONWebKeySetFetcher(transport: transport).fetch(
                try #require(URL(string: "http://auth.example.com/jwks")))
        }
        #expect(transport.requests.isEmpty)
        _ = await expectError(.transport) { _ = try await fetch(ScriptedTransport.failure(.connectionFailed)) }
    }
}
