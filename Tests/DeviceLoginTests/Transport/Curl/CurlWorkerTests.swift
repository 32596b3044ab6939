#if canImport(CCurl)
import Foundation
import Testing
@testable import DeviceLogin

#if canImport(Glibc)
import Glibc
#endif

/// CurlWorker's limits and queue, on private workers with small limits (each keeps an idle thread for the rest of
/// the test process, asleep in `curl_multi_poll`).
@Suite("CurlWorker")
struct CurlWorkerTests {
    private func setup(for request: HTTPRequest) throws -> CurlTransfer.Setup {
        CurlTransfer.Setup(
            options: TransportOptions(),
            proxy: CurlTransport.ProxySettings(proxy: "", noProxy: nil),
            headerLines: try CurlTransport.headerLines(for: request)
        )
    }

    @Test func transfersBeyondTheLimitWaitTheirTurnAndAllFinish() async throws {
        let worker = try CurlWorker(limits: CurlWorker.Limits(maximumActiveTransfers: 2, maximumIdleHandles: 1))
        let count = 6
        let held = HeldRequests()
        // The server holds each request until another one is held too and 200 ms have passed, or three are held,
        // or all have arrived: the most held at once is then the most the worker ran at once, and a worker that
        // ran more than two would have shown a third in those 200 ms.
        let server = try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            held.arrive()
            let arrival = ContinuousClock.now
            held.waitUntil { counts in
                counts.waiting >= 3 || counts.arrived == count
                    || (counts.waiting == 2 && ContinuousClock.now - arrival >= .milliseconds(200))
            }
            held.leave()
            connection.write(RawHTTPServer.response(body: "ok"))
        }
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.url("/token"))
        let setup = try setup(for: request)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask { try await worker.perform(request, setup: setup).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 200, count: count))
        #expect(held.mostWaiting == 2)
    }

    @Test func cancellingAQueuedTransferSendsNothing() async throws {
        let worker = try CurlWorker(limits: CurlWorker.Limits(maximumActiveTransfers: 1, maximumIdleHandles: 1))
        let server = try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            if connection.waitForPeerToClose(seconds: 60) { connection.note("peer closed") }
        }
        defer { server.stop() }
        let first = HTTPRequest(method: .get, url: server.url("/first"))
        let queued = HTTPRequest(method: .get, url: server.url("/queued"))
        let (firstSetup, queuedSetup) = (try setup(for: first), try setup(for: queued))

        let firstTask = Task { try await worker.perform(first, setup: firstSetup) }
        #expect(await server.wait { !$0.requests.isEmpty })
        let queuedTask = Task { try await worker.perform(queued, setup: queuedSetup) }
        #expect(await Self.eventually { worker.hasQueued })
        queuedTask.cancel()
        await #expect(throws: CancellationError.self) { try await queuedTask.value }
        // The worker forgets it even though the only slot is still taken.
        #expect(await Self.eventually { !worker.hasQueued })
        firstTask.cancel()
        await #expect(throws: CancellationError.self) { try await firstTask.value }

        #expect(await server.wait { $0.notes.contains("peer closed") })
        #expect(server.requests.map(\.requestLine) == ["GET /first HTTP/1.1"])
        let answering = try RawHTTPServer.replying(RawHTTPServer.response(body: "after"))
        defer { answering.stop() }
        let after = HTTPRequest(method: .get, url: answering.url("/after"))
        let response = try await worker.perform(after, setup: try setup(for: after))
        #expect(String(decoding: response.body, as: UTF8.self) == "after")
    }

    /// A worker whose loop a host runs (the CLI's executor is one): submissions from other threads wake the host's
    /// wait in `curl_multi_poll`, several transfers share it, and a cancelled one is dropped while the others go on.
    @Test(.timeLimit(.minutes(1)))
    func aHostedLoopServesRequestsFromAnyThread() async throws {
        let host = BareHost()
        let worker = try CurlWorker(
            limits: CurlWorker.Limits(maximumActiveTransfers: 2, maximumIdleHandles: 1), host: host)
        #expect(host.adopted)
        let answering = try RawHTTPServer.replying(RawHTTPServer.response(body: "ok"))
        defer { answering.stop() }
        let request = HTTPRequest(method: .get, url: answering.url("/token"))
        let setup = try setup(for: request)
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { String(decoding: try await worker.perform(request, setup: setup).body, as: UTF8.self) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "ok", count: 8))

        let holding = try RawHTTPServer { connection in
            guard connection.readRequest() != nil else { return }
            if connection.waitForPeerToClose(seconds: 60) { connection.note("peer closed") }
        }
        defer { holding.stop() }
        let held = HTTPRequest(method: .get, url: holding.url("/held"))
        let heldSetup = try self.setup(for: held)
        let heldTask = Task { try await worker.perform(held, setup: heldSetup) }
        #expect(await holding.wait { !$0.requests.isEmpty })
        heldTask.cancel()
        await #expect(throws: CancellationError.self) { try await heldTask.value }
        #expect(await holding.wait { $0.notes.contains("peer closed") })
        let after = try await worker.perform(request, setup: setup)
        #expect(String(decoding: after.body, as: UTF8.self) == "ok")
    }

    // MARK: - Fixtures

    /// A loop host with no jobs of its own: one thread that drives the loop it adopts and waits in it.
    private final class BareHost: LoopHost, Sendable {
        private let driver = Locked<(any LoopDriver)?>(nil)
        private let thread = Locked<pthread_t?>(nil)

        /// Whether a loop was handed over (the worker then starts no thread of its own).
        var adopted: Bool { driver.withLock { $0 != nil } }

        var isCurrent: Bool {
            thread.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        }

        func interrupt() { driver.withLock { $0 }?.interrupt() }

        func adopt(_ adopted: any LoopDriver) {
            driver.withLock { $0 = adopted }
            _ = DedicatedThread.start { [self] in
                thread.withLock { $0 = pthread_self() }
                while true {
                    if !adopted.drive() { adopted.wait(milliseconds: Int32.max) }
                }
            }
        }
    }

    /// Waits (polling, at most 20 s: sanitizers slow everything) until `condition` holds.
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// Counts requests a server holds before answering, from its connection threads.
    private final class HeldRequests: Sendable {
        struct Counts {
            var arrived = 0
            var waiting = 0
            var mostWaiting = 0
        }

        private let counts = Locked(Counts())

        var mostWaiting: Int { counts.withLock { $0.mostWaiting } }

        func arrive() {
            counts.withLock { counts in
                counts.arrived += 1
                counts.waiting += 1
                counts.mostWaiting = max(counts.mostWaiting, counts.waiting)
            }
        }

        func leave() {
            counts.withLock { $0.waiting -= 1 }
        }

        /// Blocks the connection's thread until `condition` holds, for at most 60 s: the test's tasks that send the
        /// next requests can wait seconds for a thread in a parallel sanitizer run.
        func waitUntil(_ condition: (Counts) -> Bool) {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, !counts.withLock({ condition($0) }) {
                usleep(2_000)
            }
        }
    }
}
#endif
