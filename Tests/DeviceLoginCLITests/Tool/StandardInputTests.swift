import Foundation
import Testing

@testable import DeviceLoginCLI

#if canImport(Glibc)
import Glibc
#endif

@Suite("StandardInput: bounded reads that stop when a message is complete")
struct StandardInputTests {
    private static let blankLine: @Sendable ([UInt8]) -> Bool = { bytes in
        bytes.count >= 2 && bytes.suffix(2).elementsEqual([0x0A, 0x0A])
    }

    @Test("a complete message ends the read; the end of input too; over the limit: tooLong after limit + 1 bytes")
    func endings() async throws {
        let message = Array("protocol=https\nhost=x\n\n".utf8)
        let complete = try await StandardInput.bytes(message, chunkSize: 3).read(limit: 100, until: Self.blankLine)
        #expect(complete == StandardInput.Read(bytes: message, ending: .complete))

        let partial = try await StandardInput.bytes(Array("host=x".utf8)).read(limit: 100, until: Self.blankLine)
        #expect(partial == StandardInput.Read(bytes: Array("host=x".utf8), ending: .endOfInput))

        let huge = [UInt8](repeating: 0x61, count: 1 << 20)
        let long = try await StandardInput.bytes(huge).read(limit: 64 * 1024, until: Self.blankLine)
        #expect(long.ending == .tooLong)
        #expect(long.bytes.count == 64 * 1024 + 1)

        let empty = try await StandardInput.empty.read(limit: 10, until: Self.blankLine)
        #expect(empty == StandardInput.Read(bytes: [], ending: .endOfInput))
    }

    @Test("on a pipe whose writer keeps it open, the read returns once the message is complete")
    func pipeKeptOpen() async throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer {
            close(descriptors[0])
            close(descriptors[1])
        }
        let message = Array("host=x\n\n".utf8)
        #expect(message.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) } == message.count)
        let read = try await StandardInput.fileDescriptor(descriptors[0]).read(limit: 100, until: Self.blankLine)
        #expect(read == StandardInput.Read(bytes: message, ending: .complete))
    }

    @Test("a descriptor that cannot be read: a clear error")
    func unreadable() async {
        await #expect(throws: (any Error).self) {
            _ = try await StandardInput.fileDescriptor(-1).read(limit: 10, until: Self.blankLine)
        }
    }
}
