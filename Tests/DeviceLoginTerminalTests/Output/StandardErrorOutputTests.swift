import DeviceLoginTerminal
import Foundation
import Testing

@Suite("StandardErrorOutput")
struct StandardErrorOutputTests {
    @Test("Writes every byte to its descriptor, unbuffered")
    func writesAll() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { close(descriptors[0]) }
        let output = StandardErrorOutput(fileDescriptor: descriptors[1])
        #expect(output.fileDescriptor == descriptors[1])
        output.write("Code: WDJB-MJHT\n")
        output.write("\r\u{1B}[2K⠋ Waiting…")
        output.write("")
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0]).readDataToEndOfFile()
        #expect(String(decoding: data, as: UTF8.self) == "Code: WDJB-MJHT\n\r\u{1B}[2K⠋ Waiting…")
    }

    @Test("A write larger than the pipe's buffer arrives whole (short writes are continued)")
    func largeWrite() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { close(descriptors[0]) }
        let reader = FileHandle(fileDescriptor: descriptors[0])
        let received = LockedData()
        let done = DispatchSemaphore(value: 0)
        // The reader runs on its own thread: the write blocks until it drains the pipe.
        Thread.detachNewThread {
            received.set(reader.readDataToEndOfFile())
            done.signal()
        }
        let text = String(repeating: "0123456789abcdef", count: 20_000) // 320 000 bytes
        StandardErrorOutput(fileDescriptor: descriptors[1]).write(text)
        close(descriptors[1])
        done.wait()
        #expect(received.get() == Data(text.utf8))
    }

    @Test("The default is standard error")
    func defaultDescriptor() {
        #expect(StandardErrorOutput().fileDescriptor == 2)
    }
}

/// Data handed from the reader thread to the test.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data() // guarded by `lock`
    func set(_ value: Data) { lock.locked { data = value } }
    func get() -> Data { lock.locked { data } }
}
