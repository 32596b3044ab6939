import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ResultSink: a result that did not arrive is an error")
struct ResultSinkTests {
    /// A pipe as two descriptors, closed by the caller.
    private func pipeDescriptors() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    @Test("a full device, a pipe nobody reads, a closed descriptor: the errno, in words")
    func failures() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        #expect(throws: ResultSink.WriteError(code: ENOSPC)) { try ResultSink.fileDescriptor(full).line("token") }

        // As in device-login (CLIProcess), SIGPIPE is ignored, so that the write fails with EPIPE instead of
        // ending the process: here the test runner's.
        signal(SIGPIPE, SIG_IGN)
        let (reader, writer) = try pipeDescriptors()
        close(reader)
        defer { close(writer) }
        #expect(throws: ResultSink.WriteError(code: EPIPE)) { try ResultSink.fileDescriptor(writer).line("token") }

        let (closedReader, closedWriter) = try pipeDescriptors()
        close(closedReader)
        close(closedWriter)
        #expect(throws: ResultSink.WriteError(code: EBADF)) {
            try ResultSink.fileDescriptor(closedWriter).line("token")
        }
        #expect(
            ResultSink.WriteError(code: EBADF).message
                == "could not write the result to standard output: it is closed")
        #expect(
            ResultSink.WriteError(code: ENOSPC).message
                == "could not write the result to standard output: " + String(cString: strerror(ENOSPC)))
    }

    @Test("a non-blocking descriptor that fills up: every byte arrives, in order")
    func nonBlocking() async throws {
        let (reader, writer) = try pipeDescriptors()
        defer { close(reader) }
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        let text = String(repeating: "0123456789abcdef", count: 65_536)
        // Both ends block, so both run on Dispatch threads, not on the cooperative pool: a slow reader, and a
        // writer that has to wait for room.
        let group = DispatchGroup()
        let received = Locked(0)
        DispatchQueue.global().async(group: group) {
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count <= 0 { return }
                received.withLock { $0 += count }
                usleep(100)
            }
        }
        let written = Locked<Result<Void, ResultSink.WriteError>>(.success(()))
        DispatchQueue.global().async(group: group) {
            let sink = ResultSink.fileDescriptor(writer)
            let result = Result { () throws(ResultSink.WriteError) in try sink.write(text) }
            written.withLock { $0 = result }
            close(writer)
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        try written.withLock { $0 }.get()
        #expect(received.withLock { $0 } == text.utf8.count)
    }

    @Test("the buffer keeps what was written; a failing sink fails every write")
    func buffers() throws {
        let (sink, contents) = ResultSink.buffer()
        try sink.write("a")
        try sink.line("b")
        #expect(contents() == "ab\n")
        #expect(throws: ResultSink.WriteError(code: EIO)) { try ResultSink.failing(EIO).line() }
    }

    @Test(
        "--version and --help into a failing stdout: exit 74 and one line on stderr",
        arguments: [
            ["--version"], ["--help"], ["help", "token"], ["login", "--help"],
        ])
    func dispatcher(words: [String]) async {
        let result = await CLIHarness.run(words, stdout: .failing(ENOSPC))
        #expect(result.code == .ioError)
        #expect(result.stderr == "device-login: " + ResultSink.WriteError(code: ENOSPC).message + "\n")
    }

    @Test(
        "a reader that closed the pipe early (EPIPE): exit 141 and nothing on stderr; ENOSPC and EBADF stay errors",
        arguments: [["--version"], ["--help"], ["status"], ["status", "--json"]])
    func readerGone(words: [String]) async throws {
        #expect(!ResultSink.WriteError(code: ENOSPC).readerIsGone)
        #expect(!ResultSink.WriteError(code: EBADF).readerIsGone)
        #expect(ResultSink.WriteError(code: EPIPE).readerIsGone)
        let home = try BinaryHarness.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = await CLIHarness.run(words, environment: ["DEVICE_LOGIN_HOME": home.path], stdout: .failing(EPIPE))
        #expect(result.code == .readerGone)
        #expect(result.code.rawValue == 141)
        #expect(result.stderr == "")
    }
}
