/// An ``HTTPTransport`` that describes every exchange in lines for a person — method, URL, status, timing, the
/// headers that matter and the bodies — with every secret redacted (``Redaction``), and passes requests and
/// responses on unchanged.
///
/// ```swift
/// let transport = TracingTransport(wrapping: DefaultTransport.make()) { line in log(line) }
/// ```
///
/// Lines start with `>` for what was sent, `<` for what came back and `!` for a failure. Bodies are shown up to
/// ``maximumBodyCharacters``; JSON and form bodies have their secret members redacted by name, and any secret value
/// seen earlier in the trace is scrubbed wherever it appears again. Server text is passed on as received: a
/// terminal front end must sanitise it before printing.
public struct TracingTransport: HTTPTransport {
    /// The longest body excerpt traced: 2,000 characters.
    public static let maximumBodyCharacters = 2_000
    /// The response headers traced; the others are left out as noise.
    public static let tracedResponseHeaders: Set<String> = [
        "content-type", "content-length", "cache-control", "retry-after", "www-authenticate", "location",
        "dpop-nonce", "set-cookie",
    ]

    private let base: any HTTPTransport
    private let clock: FlowClock
    private let trace: @Sendable (String) -> Void
    private let redaction = Locked(Redaction())

    /// Wraps a transport.
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - clock: The clock for the timings; ``SystemTime/clock`` by default.
    ///   - trace: Called with each line, in order.
    public init(
        wrapping base: any HTTPTransport,
        clock: any Clock<Duration> = SystemTime.clock,
        trace: @escaping @Sendable (String) -> Void
    ) {
        self.base = base
        self.clock = FlowClock(clock)
        self.trace = trace
    }

    /// Traces the request, sends it with the wrapped transport, traces the answer or the failure.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        for line in redaction.withLock({ describe(request, redaction: &$0) }) { trace(line) }
        let clock = self.clock
        let started = clock.elapsed()
        func elapsed() -> String { "\(Self.milliseconds(clock.elapsed() - started)) ms" }
        do {
            let response = try await base.send(request)
            let lines = redaction.withLock { describe(response, elapsed: elapsed(), redaction: &$0) }
            for line in lines { trace(line) }
            return response
        } catch {
            let text = redaction.withLock { $0.scrub(String(describing: error)) }
            trace("! \(request.method.rawValue) \(request.url.absoluteString) failed after \(elapsed()): \(text)")
            throw error
        }
    }

    private func describe(_ request: HTTPRequest, redaction: inout Redaction) -> [String] {
        var lines = ["> \(request.method.rawValue) \(redactedURL(request.url.absoluteString, &redaction))"]
        lines += request.headers.map { "> " + redaction.header($0) }
        if let body = request.body, !body.isEmpty {
            let text = String(decoding: body, as: UTF8.self)
            let form = request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded")
            let shown = form == true ? redaction.form(text) : (redaction.json(body) ?? redaction.scrub(text))
            lines.append("> body: " + Self.excerpt(shown))
        }
        return lines
    }

    private func describe(_ response: HTTPResponse, elapsed: String, redaction: inout Redaction) -> [String] {
        var lines = ["< \(response.status) (\(elapsed))"]
        for header in response.headers where Self.tracedResponseHeaders.contains(header.name.lowercased()) {
            lines.append("< " + redaction.header(header))
        }
        if !response.body.isEmpty {
            let shown: String
            if let json = redaction.json(response.body) {
                shown = json
            } else if response.mediaType == "application/x-www-form-urlencoded" {
                shown = redaction.form(String(decoding: response.body, as: UTF8.self))
            } else {
                shown = redaction.scrub(String(decoding: response.body, as: UTF8.self))
            }
            lines.append("< body: " + Self.excerpt(shown))
        }
        return lines
    }

    /// The URL with the values of secret query parameters redacted.
    private func redactedURL(_ url: String, _ redaction: inout Redaction) -> String {
        guard let question = url.firstIndex(of: "?") else { return redaction.scrub(url) }
        let query = url[url.index(after: question)...]
        return redaction.scrub(String(url[..<question])) + "?" + redaction.form(String(query))
    }

    private static func excerpt(_ text: String) -> String {
        guard text.count > maximumBodyCharacters else { return text }
        return String(text.prefix(maximumBodyCharacters)) + "… (\(text.count) chars)"
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000_000_000
    }
}
