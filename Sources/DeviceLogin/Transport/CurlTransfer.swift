#if canImport(CCurl)
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request on libcurl, from setup to cleanup, confined to the thread that runs it.
///
/// The easy handle carries the request's options; a private multi handle drives it so that the thread waits in
/// `curl_multi_poll`, which sleeps without using CPU and which ``CurlCancellation`` can wake from the cancelling
/// thread. libcurl's callbacks reach this object through an unretained pointer, valid while ``run()`` runs.
final class CurlTransfer {
    /// What a transfer needs to know beyond the request.
    struct Setup: Sendable {
        var options: TransportOptions
        var proxy: CurlTransport.ProxySettings
        /// The request's header lines, ready for libcurl (see ``CurlTransport/headerLines(for:)``).
        var headerLines: [String]
    }

    private enum Outcome {
        case finished(CURLcode)
        case cancelled
        case failed(String)
    }

    private let request: HTTPRequest
    private let setup: Setup
    private let cancellation: CurlCancellation
    private let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var collector: CurlResponseCollector

    private init(
        request: HTTPRequest, setup: Setup, cancellation: CurlCancellation, easy: UnsafeMutableRawPointer
    ) {
        self.request = request
        self.setup = setup
        self.cancellation = cancellation
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        collector = CurlResponseCollector(maximumBodyBytes: setup.options.maximumResponseBytes)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Sends `request` and waits for its response, blocking the calling thread (never a cooperative one).
    /// - Returns: The response, or the ``TransportError`` or `CancellationError` that ended the transfer.
    static func perform(
        _ request: HTTPRequest, setup: Setup, cancellation: CurlCancellation
    ) -> Result<HTTPResponse, any Error> {
        guard let easy = curl_easy_init() else {
            return .failure(TransportError(.other, "libcurl could not create a transfer"))
        }
        let transfer = CurlTransfer(request: request, setup: setup, cancellation: cancellation, easy: easy)
        guard transfer.configure() else {
            return .failure(TransportError(.other, "libcurl refused the request's options"))
        }
        return transfer.result(of: transfer.run())
    }

    // MARK: - Setup

    /// Sets every option; `false` when libcurl refuses one (an out-of-memory or a too-old libcurl).
    private func configure() -> Bool {
        let options = setup.options
        var codes: [CURLcode] = [
            dl_curl_setopt_string(easy, CURLOPT_URL, request.url.absoluteString),
            dl_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            // Nothing but HTTP(S), even if a URL or a redirect asked for file://, ftp:// or the like.
            dl_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            dl_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            // Redirects come back as 3xx responses: a POST carrying credentials is never re-sent elsewhere.
            dl_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),
            dl_curl_setopt_long(easy, CURLOPT_HTTP09_ALLOWED, 0),
            dl_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)),
            dl_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(options.requestTimeout)),
            dl_curl_setopt_string(easy, CURLOPT_USERAGENT, options.userAgent),
            dl_curl_setopt_string(easy, CURLOPT_PROXY, setup.proxy.proxy),
            dl_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer),
        ]
        if options.maximumResponseBytes > 0 {
            // Refuses at once a response whose Content-Length announces too much (0 would mean "no limit");
            // the body callback enforces the limit on what actually arrives.
            let limit = curl_off_t(options.maximumResponseBytes)
            codes.append(dl_curl_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, limit))
        }
        if let noProxy = setup.proxy.noProxy {
            codes.append(dl_curl_setopt_string(easy, CURLOPT_NOPROXY, noProxy))
        }
        if let caFile = options.caFile {
            // The file replaces the system's trust store rather than adding to it.
            codes.append(dl_curl_setopt_string(easy, CURLOPT_CAINFO, caFile))
            codes.append(dl_curl_setopt_string(easy, CURLOPT_CAPATH, nil))
        }
        codes += configureCallbacks()
        codes += configureMethodAndBody()
        for line in setup.headerLines {
            guard let list = curl_slist_append(headerList, line) else { return false }
            headerList = list
        }
        codes.append(dl_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        return codes.allSatisfy { $0 == CURLE_OK }
    }

    private func configureCallbacks() -> [CURLcode] {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return [
            dl_curl_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                CurlTransfer.deliver(data, size * count, to: context) { $0.receiveBody($1) }
            },
            dl_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context),
            dl_curl_setopt_write_function(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                CurlTransfer.deliver(data, size * count, to: context) { $0.receiveHeaderLine($1) }
            },
            dl_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context),
            // Called often while data flows: a non-zero return aborts the transfer.
            dl_curl_setopt_xferinfo_function(easy) { context, _, _, _, _ in
                guard let context else { return 1 }
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    .cancellation.isCancelled ? 1 : 0
            },
            dl_curl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context),
            dl_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0),
        ]
    }

    /// Hands bytes from a libcurl data callback to the collector of the transfer `context` points to.
    /// - Returns: `length` when the collector took the bytes, 0 (which makes libcurl stop) when it refused them.
    private static func deliver(
        _ data: UnsafeMutablePointer<CChar>?,
        _ length: Int,
        to context: UnsafeMutableRawPointer?,
        _ receive: (inout CurlResponseCollector, UnsafeRawBufferPointer) -> Bool
    ) -> Int {
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return receive(&transfer.collector, UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
    }

    private func configureMethodAndBody() -> [CURLcode] {
        let body = request.body ?? Data()
        var codes: [CURLcode] = []
        switch request.method {
        case .get where body.isEmpty:
            return [dl_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)]
        case .get:
            codes.append(dl_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        case .post:
            break
        }
        codes.append(dl_curl_setopt_long(easy, CURLOPT_POST, 1))
        // The size first: COPYPOSTFIELDS then copies exactly that many bytes, NULs included.
        codes.append(dl_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        if body.isEmpty {
            codes.append(dl_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""))
        } else {
            codes.append(body.withUnsafeBytes { bytes in
                let start = UnsafeMutableRawPointer(mutating: bytes.baseAddress)
                return dl_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, start)
            })
        }
        return codes
    }

    /// Seconds as libcurl's milliseconds, at least 1 (0 would mean "no limit").
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int(Int32.max) : 1 }
        return Int(max(1, min(seconds * 1000, Double(Int32.max))).rounded(.up))
    }

    // MARK: - Running

    /// Drives the transfer to its end, sleeping in `curl_multi_poll` whenever there is nothing to do.
    private func run() -> Outcome {
        guard let multi = curl_multi_init() else { return .failed("libcurl could not create a multi handle") }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            curl_multi_cleanup(multi)
            return .failed("libcurl could not start the transfer")
        }
        cancellation.attach(multi)
        defer {
            cancellation.detach()
            curl_multi_remove_handle(multi, easy)
            curl_multi_cleanup(multi)
        }
        while !cancellation.isCancelled {
            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            guard performed == CURLM_OK else { return .failed(String(cString: curl_multi_strerror(performed))) }
            var code = CURLE_OK
            if dl_curl_multi_finished(multi, &code) != 0 { return .finished(code) }
            // Sleeps until a socket is ready, libcurl's next timer is due, or CurlCancellation wakes it.
            let polled = curl_multi_poll(multi, nil, 0, 1000, nil)
            guard polled == CURLM_OK else { return .failed(String(cString: curl_multi_strerror(polled))) }
        }
        return .cancelled
    }

    private func result(of outcome: Outcome) -> Result<HTTPResponse, any Error> {
        let host = request.url.host ?? "the server"
        if cancellation.isCancelled { return .failure(CancellationError()) }
        switch outcome {
        case .cancelled:
            return .failure(CancellationError())
        case .failed(let detail):
            return .failure(TransportError(.other, "the request to \(host) failed: \(detail)"))
        case .finished(let code) where code == CURLE_OK:
            var status = 0
            _ = dl_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPResponse(status: status, headers: collector.headers, body: collector.body))
        case .finished(let code):
            if let overflow = collector.overflow { return .failure(overflow) }
            if code == CURLE_FILESIZE_EXCEEDED {
                let limit = setup.options.maximumResponseBytes
                return .failure(TransportError(.responseTooLarge, CurlResponseCollector.bodyTooLarge(limit: limit)))
            }
            let detail = CurlTransport.errorDetail(buffer: String(cString: errorBuffer), code: code)
            return .failure(CurlTransport.transportError(for: code, detail: detail, host: host))
        }
    }
}
#endif
