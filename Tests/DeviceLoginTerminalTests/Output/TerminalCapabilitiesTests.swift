import DeviceLoginTerminal
import Foundation
import Testing

@Suite("TerminalCapabilities")
struct TerminalCapabilitiesTests {
    private func capabilities(
        _ environment: [String: String],
        isTerminal: Bool = true,
        windowSize: (columns: Int, rows: Int)? = nil
    ) -> TerminalCapabilities {
        TerminalCapabilities.from(environment: environment, isTerminal: isTerminal, windowSize: windowSize)
    }

    @Test(
        "The locale is UTF-8 by the first non-empty of LC_ALL, LC_CTYPE, LANG",
        arguments: [
            (["LANG": "en_US.UTF-8"], true),
            (["LANG": "de_DE.utf8"], true),
            (["LC_CTYPE": "C.UTF-8"], true),
            (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
            (["LC_ALL": "", "LC_CTYPE": "en_GB.UTF-8", "LANG": "C"], true),
            (["LC_CTYPE": "POSIX", "LANG": "en_US.UTF-8"], false),
            (["LANG": "fr_FR.ISO-8859-1"], false),
            (["LANG": "C"], false),
            ([:], false),
        ])
    func locale(environment: [String: String], isUTF8: Bool) {
        #expect(TerminalCapabilities.isUTF8Locale(environment) == isUTF8)
        #expect(capabilities(environment).isUTF8 == isUTF8)
    }

    @Test("NO_COLOR with any non-empty value turns colour off, but not escapes")
    func noColor() {
        let base = ["TERM": "xterm-256color"]
        #expect(capabilities(base).allowsColor)
        #expect(!capabilities(base.merging(["NO_COLOR": "1"]) { $1 }).allowsColor)
        #expect(!capabilities(base.merging(["NO_COLOR": "0"]) { $1 }).allowsColor)
        #expect(capabilities(base.merging(["NO_COLOR": "1"]) { $1 }).allowsEscapes)
        #expect(capabilities(base.merging(["NO_COLOR": ""]) { $1 }).allowsColor)
    }

    @Test("TERM=dumb, or no TERM, allows no escapes")
    func dumb() {
        #expect(!capabilities(["TERM": "dumb"]).allowsEscapes)
        #expect(!capabilities([:]).allowsEscapes)
        #expect(!capabilities(["TERM": ""]).allowsEscapes)
        #expect(capabilities(["TERM": "vt220"]).allowsEscapes)
        #expect(capabilities(["TERM": "linux"]).allowsColor)
    }

    @Test("A DEC VT model in TERM (a serial console) gets escapes but no colour")
    func monochrome() {
        #expect(capabilities(["TERM": "vt220"]).isMonochrome)
        #expect(!capabilities(["TERM": "vt100"]).allowsColor)
        #expect(capabilities(["TERM": "vt100"]).allowsEscapes)
        #expect(capabilities(["TERM": "vt220-color"]).allowsColor)
        #expect(!capabilities(["TERM": "xterm-256color"]).isMonochrome)
    }

    @Test("A pipe allows no escapes and no colour")
    func pipeAllowsNoEscapes() {
        let pipe = capabilities(["TERM": "xterm"], isTerminal: false)
        #expect(!pipe.allowsEscapes && !pipe.allowsColor)
    }

    @Test("The size comes from the kernel, else COLUMNS and LINES")
    func size() {
        let environment = ["COLUMNS": "132", "LINES": "43"]
        let fromKernel = capabilities(environment, windowSize: (120, 40))
        #expect(fromKernel.columns == 120 && fromKernel.rows == 40)
        let fallback = capabilities(environment, windowSize: nil)
        #expect(fallback.columns == 132 && fallback.rows == 43)
        let zero = capabilities(environment, windowSize: (0, 0))
        #expect(zero.columns == 132 && zero.rows == 43)
        let unknown = capabilities(["COLUMNS": "wide", "LINES": "-3"])
        #expect(unknown.columns == nil && unknown.rows == nil)
    }

    @Test("A size beyond 10,000, from the kernel, the environment or a caller, counts as unknown")
    func implausibleSizesAreUnknown() {
        let huge = ["COLUMNS": "9223372036854775807", "LINES": "10001"]
        let zeroByZero = capabilities(huge, windowSize: (0, 0))
        #expect(zeroByZero.columns == nil && zeroByZero.rows == nil)
        let kernel = capabilities([:], windowSize: (65_535, 10_000))
        #expect(kernel.columns == nil && kernel.rows == 10_000)
        var given = TerminalCapabilities(isTerminal: true, columns: .max, rows: -1, isUTF8: true)
        #expect(given.columns == nil && given.rows == nil)
        given.columns = .min
        given.rows = 24
        #expect(given.columns == nil && given.rows == 24)
    }

    @Test("detect() on a pipe: not a terminal, size from the environment")
    func detectOnPipe() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer {
            close(descriptors[0])
            close(descriptors[1])
        }
        let detected = TerminalCapabilities.detect(
            fileDescriptor: descriptors[1],
            environment: ["LANG": "en_US.UTF-8", "TERM": "xterm", "COLUMNS": "90", "LINES": "30"]
        )
        #expect(
            detected
                == TerminalCapabilities(
                    isTerminal: false, columns: 90, rows: 30, isUTF8: true, noColor: false, term: "xterm"
                ))
    }

    @Test("detect() on a pseudo-terminal: a terminal, with the size the kernel reports")
    func detectOnPseudoTerminal() throws {
        // The controlling side of a pseudo-terminal is a terminal too, and carries the window size: enough to
        // exercise isatty and TIOCGWINSZ without unlocking and opening the other side.
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        var size = winsize()
        size.ws_col = 111
        size.ws_row = 33
        try #require(ioctl(terminal, UInt(TIOCSWINSZ), &size) == 0)
        let detected = TerminalCapabilities.detect(
            fileDescriptor: terminal, environment: ["LANG": "C.UTF-8", "TERM": "vt220", "COLUMNS": "80"]
        )
        #expect(detected == TerminalCapabilities(isTerminal: true, columns: 111, rows: 33, isUTF8: true, term: "vt220"))
    }
}
