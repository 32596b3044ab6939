#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the terminal on the other end of an output can do: a plain value, so tests can state it outright.
///
/// Read the real one with ``detect(fileDescriptor:environment:)``; build one by hand in tests:
///
/// ```swift
/// let laptop = TerminalCapabilities(isTerminal: true, columns: 120, rows: 40, isUTF8: true)
/// let pipe = TerminalCapabilities.detect()   // stderr, the process environment
/// ```
public struct TerminalCapabilities: Sendable, Hashable {
    /// Whether the output is a terminal (`isatty`); `false` for a pipe or a file.
    public var isTerminal: Bool
    /// The largest width or height taken as real: 10,000. A larger value (a stray `COLUMNS=99999999`) counts as
    /// unknown, so no arithmetic on a size can overflow.
    public static let maximumDimension = 10_000

    /// The terminal's width in columns, when known: from 1 to ``maximumDimension``; any other value is `nil`.
    public var columns: Int? { didSet { columns = Self.bounded(columns) } }
    /// The terminal's height in rows, when known: from 1 to ``maximumDimension``; any other value is `nil`.
    public var rows: Int? { didSet { rows = Self.bounded(rows) } }
    /// Whether the locale's character set is UTF-8, so block characters and `…` can be written.
    public var isUTF8: Bool
    /// Whether the user asked for no colour: `NO_COLOR` set to any non-empty value (no-color.org).
    public var noColor: Bool
    /// The `TERM` variable, when set and not empty.
    public var term: String?

    /// Creates a description of a terminal.
    ///
    /// - Parameters:
    ///   - isTerminal: Whether the output is a terminal.
    ///   - columns: Its width, when known.
    ///   - rows: Its height, when known.
    ///   - isUTF8: Whether the locale is UTF-8.
    ///   - noColor: Whether `NO_COLOR` is set.
    ///   - term: The `TERM` variable.
    public init(
        isTerminal: Bool,
        columns: Int? = nil,
        rows: Int? = nil,
        isUTF8: Bool,
        noColor: Bool = false,
        term: String? = "xterm-256color"
    ) {
        self.isTerminal = isTerminal
        self.columns = Self.bounded(columns)
        self.rows = Self.bounded(rows)
        self.isUTF8 = isUTF8
        self.noColor = noColor
        self.term = term
    }

    /// Whether `TERM` is `dumb` or missing: a terminal that understands no escape sequences (Emacs' shell buffer,
    /// some CI consoles).
    public var isDumb: Bool {
        term == nil || term == "dumb"
    }

    /// Whether escape sequences may be written at all: a terminal that is not dumb.
    ///
    /// Carriage-return redraws, cursor hiding, bold and inverse video need this.
    public var allowsEscapes: Bool {
        isTerminal && !isDumb
    }

    /// Whether `TERM` names a DEC VT model (`vt100`, `vt220`, …) without "color": what serial consoles announce.
    /// Those terminals ignore colours, so black-on-white would come out in the default colours; no colour is
    /// assumed for them.
    public var isMonochrome: Bool {
        guard let term, term.hasPrefix("vt") else { return false }
        return !term.contains("color")
    }

    /// Whether colours may be written: escapes are allowed, `NO_COLOR` is not set and `TERM` is not a monochrome
    /// VT model.
    public var allowsColor: Bool {
        allowsEscapes && !noColor && !isMonochrome
    }

    /// Reads the capabilities of the terminal behind `fileDescriptor` from the system and the environment.
    ///
    /// The size comes from `ioctl(TIOCGWINSZ)`; when that fails or reports zero, from `COLUMNS` and `LINES`.
    ///
    /// - Parameters:
    ///   - fileDescriptor: The output the prompt is written to; standard error by default.
    ///   - environment: The environment to read `LC_ALL`, `LC_CTYPE`, `LANG`, `NO_COLOR`, `TERM`, `COLUMNS` and
    ///     `LINES` from.
    /// - Returns: The capabilities.
    public static func detect(
        fileDescriptor: Int32 = 2,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> TerminalCapabilities {
        let isTerminal = isatty(fileDescriptor) == 1
        return from(environment: environment, isTerminal: isTerminal, windowSize: windowSize(of: fileDescriptor))
    }

    /// Builds capabilities from an environment and what the system said, without asking the system.
    ///
    /// - Parameters:
    ///   - environment: The environment variables.
    ///   - isTerminal: Whether the output is a terminal.
    ///   - windowSize: The size the kernel reported, if any; a zero dimension counts as unknown.
    /// - Returns: The capabilities.
    public static func from(
        environment: [String: String],
        isTerminal: Bool,
        windowSize: (columns: Int, rows: Int)?
    ) -> TerminalCapabilities {
        func positive(_ value: Int?) -> Int? { bounded(value) }
        func number(_ name: String) -> Int? { environment[name].flatMap { Int($0) }.flatMap(positive) }
        let term = environment["TERM"].flatMap { $0.isEmpty ? nil : $0 }
        return TerminalCapabilities(
            isTerminal: isTerminal,
            columns: positive(windowSize?.columns) ?? number("COLUMNS"),
            rows: positive(windowSize?.rows) ?? number("LINES"),
            isUTF8: isUTF8Locale(environment),
            noColor: !(environment["NO_COLOR"] ?? "").isEmpty,
            term: term
        )
    }

    /// Whether the locale in force is UTF-8: the first non-empty of `LC_ALL`, `LC_CTYPE` and `LANG` names a UTF-8
    /// character set (`en_US.UTF-8`, `C.utf8`). With none set the locale is "C", which is ASCII.
    ///
    /// - Parameter environment: The environment variables.
    /// - Returns: `true` for a UTF-8 locale.
    public static func isUTF8Locale(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let normalized = Array(locale.lowercased().filter { $0 != "-" && $0 != "_" }.utf8)
        // A byte search, not String.contains: that one is _StringProcessing's generic searcher, whose set-up costs
        // every command's start-up a third of a millisecond (issue 9, "The fast path").
        let name = Array("utf8".utf8)
        guard normalized.count >= name.count else { return false }
        return (0...normalized.count - name.count).contains { normalized[$0..<$0 + name.count].elementsEqual(name) }
    }

    /// `value` when it is a plausible terminal dimension (1 through ``maximumDimension``), else `nil`.
    static func bounded(_ value: Int?) -> Int? {
        guard let value, (1...maximumDimension).contains(value) else { return nil }
        return value
    }

    /// The size the kernel reports for the terminal behind `fileDescriptor`, or `nil`.
    private static func windowSize(of fileDescriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
