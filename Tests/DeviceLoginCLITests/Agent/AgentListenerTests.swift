import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

/// The agent's socket, in process: peer credentials, the path limit, and a listener answering the helpers' client
/// while a malformed, an oversized and a silent connection are closed around it.
@Suite("Agent listener and client")
struct AgentListenerTests {
    @Test("SO_PEERCRED names the connected process and its user")
    func peerCredentials() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for descriptor in pair { close(descriptor) } }
        let peer = try #require(AgentSocket.peer(pair[0]))
        #expect(peer.pid == getpid() && peer.uid == getuid())
    }

    @Test("the same user and root are admitted, nobody else")
    func admits() {
        #expect(AgentSocket.admits(peer: 1000, owner: 1000))
        #expect(AgentSocket.admits(peer: 0, owner: 1000))
        #expect(!AgentSocket.admits(peer: 1001, owner: 1000))
        #expect(!AgentSocket.admits(peer: 1000, owner: 0))
    }

    @Test("a path sockaddr_un cannot hold, or with a NUL, gets no address")
    func addressLimits() {
        let tooLong = "/" + String(repeating: "a", count: AgentSocket.maximumPathLength)
        #expect(AgentSocket.withAddress(tooLong) { _, _ in true } == nil)
        #expect(AgentSocket.withAddress("") { _, _ in true } == nil)
        #expect(AgentSocket.withAddress("/tmp/a\u{0}b") { _, _ in true } == nil)
        #expect(
            AgentSocket.withAddress("/" + String(repeating: "a", count: AgentSocket.maximumPathLength - 1)) { _, _ in
                true
            } == true)
    }

    @Test("--socket in a folder others may enter is refused")
    func openFolderRefused() {
        #expect(throws: DeviceLoginError.self) { try AgentPlace.make("/tmp/agent-test.sock", environment: [:]) }
    }

    /// Runs `body`, which blocks, on a thread of its own: never on the cooperative pool, which other tests share.
    private static func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value? {
        await withCheckedContinuation { continuation in
            let started = DedicatedThread.start { continuation.resume(returning: body()) }
            if !started { continuation.resume(returning: nil) }
        }
    }

    /// The blocking client, as the lane runs it on the process's only thread.
    private static func ask(_ request: AgentRequest, socket: String) async -> Result<AgentReply, AgentClient.Failure>? {
        await offPool { AgentClient.ask(request, socket: socket) }
    }

    /// Connects, sends `bytes` and reads until the agent closes: true when it closed without a reply.
    private static func closesWithoutReply(_ bytes: [UInt8], socket: String) -> Bool {
        let descriptor = AgentSocket.stream()
        defer { close(descriptor) }
        AgentSocket.setTimeouts(descriptor, send: 5, receive: 5)
        guard AgentSocket.withAddress(socket, { connect(descriptor, $0, $1) }) == 0 else { return false }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    @Test("the client gets the keeper's reply; bad requests close their own connection only")
    func roundTrip() async throws {
        var template = Array((NSTemporaryDirectory() + "/agent-test.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let place = try AgentPlace.make(folder + "/agent.sock", environment: [:])
        defer {
            place.remove()
            rmdir(folder)
        }
        let listening = try place.listen()
        defer { close(listening) }
        var status = stat()
        #expect(lstat(place.socket, &status) == 0 && status.st_mode & 0o777 == 0o600)
        // A long request time: the waiting connection must outlast a slow, busy test run.
        let listener = try AgentListener(listening: listening, owner: getuid(), requestSeconds: 300)
        try listener.start()
        let served = Task {
            var count = 0
            for await job in listener.requests {
                count += 1
                let reply: AgentReply =
                    job.request.profile == "work"
                    ? .token(
                        AgentReply.Token(
                            profile: "work", accessToken: "at", tokenType: "Bearer", expiresAt: 10, username: nil))
                    : .none
                listener.reply(reply, to: job)
            }
            return count
        }
        // A connection that waits while the bad ones come and go.
        let waiting = AgentSocket.stream()
        defer { close(waiting) }
        try #require(AgentSocket.withAddress(place.socket, { connect(waiting, $0, $1) }) == 0)

        let socket = place.socket
        let closed = await Self.offPool {
            [
                Self.closesWithoutReply(Array("not json\n".utf8), socket: socket),
                Self.closesWithoutReply(Array(#"{"v":1,"op":"token"}"#.utf8) + [10, 10], socket: socket),
                Self.closesWithoutReply(
                    [UInt8](repeating: UInt8(ascii: "x"), count: AgentRequest.maximumLineLength), socket: socket),
            ]
        }
        #expect(closed == [true, true, true])

        let asked = await Self.ask(AgentRequest(profile: "work", url: nil, minimumLifetime: 60), socket: place.socket)
        #expect(
            asked
                == .success(
                    .token(
                        AgentReply.Token(
                            profile: "work", accessToken: "at", tokenType: "Bearer", expiresAt: 10, username: nil))))
        #expect(
            await Self.ask(AgentRequest(profile: nil, url: nil, minimumLifetime: 0), socket: place.socket)
                == .success(.none))

        let line = Array(AgentRequest(profile: nil, url: nil, minimumLifetime: 0).line.utf8)
        let received = await Self.offPool {
            _ = line.withUnsafeBytes { send(waiting, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            AgentSocket.setTimeouts(waiting, send: 5, receive: 5)
            var reply = [UInt8](repeating: 0, count: 256)
            let count = reply.withUnsafeMutableBytes { recv(waiting, $0.baseAddress, $0.count, 0) }
            return (reply, count)
        }
        let (reply, count) = try #require(received)
        #expect(
            count > 0
                && String(decoding: reply[0..<max(count, 0)], as: UTF8.self) == #"{"v":1,"ok":true,"none":true}"# + "\n"
        )

        listener.stop()
        #expect(await served.value == 3)
    }

    @Test("no agent at the path: a failure at once, naming the reason")
    func noAgent() async throws {
        let socket = NSTemporaryDirectory() + "/no-agent.sock"
        // Timed on the thread that asks: a busy test run may be slow to come back to this task.
        let timed = await Self.offPool {
            let started = ContinuousClock.now
            let result = AgentClient.ask(AgentRequest(profile: nil, url: nil, minimumLifetime: 0), socket: socket)
            return (result, ContinuousClock.now - started)
        }
        let (result, elapsed) = try #require(timed)
        #expect(elapsed < .seconds(2))
        guard case .failure(let failure) = result else {
            Issue.record("an answer from nowhere")
            return
        }
        #expect(failure.message.hasPrefix("cannot reach the agent: "))
    }
    @Test("a refused request: an agent older than dpop, erase and list is named as the likely cause, not for token")
    func refusedByAnOlderAgent() throws {
        let url = try URLBinding("https://git.example.test/team")
        let token = AgentClient.closed(AgentRequest(profile: "work", url: nil, minimumLifetime: 0))
        #expect(token.message == "the agent closed the connection without answering")
        let operations: [AgentRequest.Operation] = [
            .list, .erase(accessToken: "refused"),
            .proof(
                method: "GET", url: try #require(URL(string: "https://api.example.test/items")), nonce: nil),
        ]
        for operation in operations {
            let failure = AgentClient.closed(
                AgentRequest(profile: nil, url: url, minimumLifetime: 0, operation: operation))
            #expect(failure.message.hasPrefix("the agent closed the connection without answering (an agent older"))
            #expect(failure.message.contains("'\(operation.name)' request"))
            #expect(!failure.message.contains("refused"), "no token in the message")
        }
    }
}
