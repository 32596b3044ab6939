import Testing

@testable import DeviceLoginTerminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("MachineName")
struct MachineNameTests {
    @Test("current() is the kernel's host name, unless it names no machine")
    func current() {
        var buffer = [CChar](repeating: 0, count: 256)
        #expect(gethostname(&buffer, 255) == 0)
        let expected = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(MachineName.current() == MachineName.informative(expected))
    }

    @Test(
        "Names that say which machine this is are kept; empty, (none) and localhost are not",
        arguments: [
            ("build-box", "build-box" as String?), ("laptop.example.com", "laptop.example.com"), ("", nil),
            ("(none)", nil), ("localhost", nil), ("LOCALHOST", nil), ("localhost.localdomain", nil),
        ])
    func informative(name: String, kept: String?) {
        #expect(MachineName.informative(name) == kept)
    }
}
