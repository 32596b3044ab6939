import Testing

@testable import DeviceLoginC

@Suite("Handoff: from tasks to a blocked C thread")
struct HandoffTests {
    @Test("items arrive in the order put, across threads")
    func order() async {
        let handoff = Handoff<Int>()
        Task.detached {
            for number in 0..<1000 { handoff.put(number) }
        }
        let received = await Task.detached { (0..<1000).map { _ in handoff.take() } }.value
        #expect(received == Array(0..<1000))
    }

    @Test("waiting(for:) returns the value, or the failure the error maps to")
    func waiting() async throws {
        let value = await Task.detached { Handoff.waiting { 42 } }.value
        #expect(try value.get() == 42)
        let failure = await Task.detached {
            Handoff<Result<Int, EmbeddedFailure>>.waiting { throw EmbeddedFailure.busy("busy") }
        }.value
        #expect(throws: EmbeddedFailure.busy("busy")) { try failure.get() }
    }
}
