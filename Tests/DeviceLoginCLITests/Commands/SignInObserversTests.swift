import DeviceLogin
import Testing

@testable import DeviceLoginCLI

/// The one fan-out of the three sign-ins: every follower sees every event before the outcome, a follower's error
/// ends the sign-in, a feeder ends with the polling, a companion runs to its end.
@Suite("SignInObservers: who follows a sign-in")
struct SignInObserversTests {
    private struct Failure: Error, Equatable {
        let name: String
    }

    /// What each observer saw, in order.
    private final class Seen: Sendable {
        private let items = Locked<[String]>([])
        func add(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }
    }

    @Test("Every follower sees every event, in order, before run returns the polling's value")
    func followersDrainBeforeTheValue() async throws {
        let (first, second) = (Seen(), Seen())
        var observers = SignInObservers<Int>()
        observers.follow { events in
            for await event in events {
                // A slow follower: the value must still wait for it.
                await Task.yield()
                first.add("\(event)")
            }
        }
        observers.follow(
            { $0.isMultiple(of: 2) ? "even \($0)" : nil },
            with: { events in
                for await event in events { second.add(event) }
            })
        let value = try await observers.run { report in
            for event in 1...50 { report(event) }
            return "token"
        }
        #expect(value == "token")
        #expect(first.all == (1...50).map { "\($0)" })
        #expect(second.all == stride(from: 2, through: 50, by: 2).map { "even \($0)" })
    }

    @Test("The polling's error is thrown once every follower has seen the last event")
    func followersDrainBeforeTheError() async throws {
        let seen = Seen()
        var observers = SignInObservers<String>()
        observers.follow { events in
            for await event in events {
                await Task.yield()
                seen.add(event)
            }
        }
        await #expect(throws: Failure(name: "denied")) {
            _ = try await observers.run { report -> Int in
                report("pending")
                report("failed")
                throw Failure(name: "denied")
            }
        }
        #expect(seen.all == ["pending", "failed"])
    }

    @Test("A follower that throws ends the sign-in with its error, and the polling is cancelled")
    func followerErrorEndsTheSignIn() async throws {
        let cancelled = Seen()
        var observers = SignInObservers<Int>()
        observers.follow { events in
            for await _ in events { throw Failure(name: "reader gone") }
        }
        await #expect(throws: Failure(name: "reader gone")) {
            _ = try await observers.run { report -> Int in
                report(1)
                do {
                    // Waits until cancelled; without the cancellation this test would not end.
                    try await Task.sleep(for: .seconds(3600))
                } catch is CancellationError {
                    cancelled.add("polling cancelled")
                }
                return 0
            }
        }
        #expect(cancelled.all == ["polling cancelled"])
    }

    @Test("A feeder's events reach the followers, and it is cancelled once the polling ends")
    func feederEndsWithThePolling() async throws {
        let seen = Seen()
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        var observers = SignInObservers<String>()
        observers.follow { events in
            for await event in events { seen.add(event) }
        }
        observers.whilePolling { report in
            report("resized")
            starting.yield()
            // Runs until cancelled, as a terminal's resizes do.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            seen.add("feeder cancelled")
        }
        let value = try await observers.run { report in
            for await _ in started { break }
            report("token")
            return 7
        }
        #expect(value == 7)
        #expect(seen.all.first == "resized")
        #expect(seen.all.contains("token"))
        #expect(seen.all.contains("feeder cancelled"))
    }

    @Test("A companion runs to its own end before run returns, even when the polling ends first")
    func companionRunsToItsEnd() async throws {
        let seen = Seen()
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        var observers = SignInObservers<Int>()
        observers.alongside {
            for await _ in release { break }
            seen.add("hook done")
        }
        let value = try await observers.run { _ in
            seen.add("polled")
            releasing.yield()
            return 1
        }
        #expect(value == 1)
        #expect(seen.all == ["polled", "hook done"])
    }
}
