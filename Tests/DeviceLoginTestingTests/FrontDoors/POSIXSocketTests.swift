import Testing

@testable import DeviceLoginTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("POSIXSocket: the listener's system calls")
struct POSIXSocketTests {
    @Test("the wake-up pipe is drained completely, so poll(2) sleeps again")
    func drainPipe() throws {
        let (readEnd, writeEnd) = try POSIXSocket.makePipe()
        defer {
            POSIXSocket.closeDescriptor(readEnd)
            POSIXSocket.closeDescriptor(writeEnd)
        }
        var byte: UInt8 = 1
        for _ in 0..<200 { _ = write(writeEnd, &byte, 1) }
        #expect(POSIXSocket.drainPipe(readEnd) == 200)
        var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 0) == 0, "the pipe still reads as ready")
        #expect(POSIXSocket.drainPipe(readEnd) == 0)
    }
}
