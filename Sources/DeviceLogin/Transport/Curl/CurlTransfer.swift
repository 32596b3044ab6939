#if canImport(CCurl)
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request on a libcurl easy handle, from setting its options to reading its result, on the worker thread.
///
/// The ``CurlWorker`` lends the easy handle from its pool and drives it with its multi handle; this object sets
/// the request's options on it and collects what the callbacks deliver. libcurl's callbacks reach this object
/// through an unretained pointer, valid while the worker keeps the transfer among its active ones.
final class CurlTransfer {
    /// What a transfer needs to know beyond the request.
    struct Setup: Sendable {
        var options: TransportOptions
        var proxy: CurlTransport.ProxySettings
        /// The request's header lines, ready for libcurl (see ``CurlTransport/headerLines(for:)``).
        var headerLines: [String]
    }

    /// The request and the caller waiting for it.
    let submission: CurlSubmission
    /// The easy handle, lent by the worker's pool for the transfer's lifetime.
    let easy: UnsafeMutableRawPointer
    private var request: HTTPRequest { submission.request }
    private var setup: Setup { submission.setup }
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var collector: CurlResponseCollector
    /// The request body still to hand to libcurl's read callback.
    private var upload = Data()[...]

    /// Prepares a transfer; ``configure()`` then sets its options on `easy`.
    /// - Parameters:
    ///   - submission: The request and the caller waiting for it.
    ///   - easy: A fresh or reset easy handle; the caller keeps ownership and must not reset or free it while
    ///     the transfer runs.
    init(submission: CurlSubmission, easy: UnsafeMutableRawPointer) {
        self.submission = submission
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        collector = CurlResponseCollector(maximumBodyBytes: submission.setup.options.maximumResponseBytes)
    }

    deinit {
        dl_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: - Setup

    /// Sets every option of the request on the easy handle.
    /// - Returns: `false` when libcurl refuses one (an out-of-memory or a too-old libcurl).
    func configure() -> Bool {
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
            guard let list = dl_curl_slist_append(headerList, line) else { return false }
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
        // libcurl re-sends a request by itself when a reused connection dies before an answer. For a POST the
        // server may already have acted on (a poll: RFC 8628 §3.5 counts it), that is a second request the engine
        // never decided on. A body is therefore handed over through a read callback that cannot rewind: once any
        // of it was sent, libcurl cannot send it again and fails the transfer with CURLE_SEND_FAIL_REWIND instead
        // (a connection failure, which the engine retries at its own pace). A POST keeps its connection alive and
        // reuses it, as a poll every few seconds should. A POST with no body (none of the library's) has nothing
        // to rewind, so it alone still goes out on a connection of its own. GETs are idempotent and reuse freely.
        let fresh = dl_curl_setopt_long(easy, CURLOPT_FRESH_CONNECT, request.method == .post && body.isEmpty ? 1 : 0)
        var codes: [CURLcode] = [fresh]
        switch request.method {
        case .get where body.isEmpty:
            return [fresh, dl_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)]
        case .get:
            codes.append(dl_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        case .post:
            break
        }
        codes.append(dl_curl_setopt_long(easy, CURLOPT_POST, 1))
        // The size first: libcurl sends it as Content-Length and reads exactly that many bytes, NULs included.
        codes.append(dl_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        if body.isEmpty {
            codes.append(dl_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""))
            return codes
        }
        upload = body[...]
        // No CURLOPT_SEEKFUNCTION, on purpose: that is what makes a sent body impossible to send again.
        codes.append(
            dl_curl_setopt_write_function(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
                guard let buffer, let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.fillUpload(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            })
        codes.append(dl_curl_setopt_pointer(easy, CURLOPT_READDATA, Unmanaged.passUnretained(self).toOpaque()))
        return codes
    }

    /// Copies the next bytes of the body into libcurl's buffer.
    /// - Returns: How many bytes were copied; 0 once the whole body was handed over.
    private func fillUpload(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, upload.count)
        guard count > 0 else { return 0 }
        upload.prefix(count).withUnsafeBytes { buffer.copyMemory(from: $0) }
        upload = upload.dropFirst(count)
        return count
    }

    /// Seconds as libcurl's milliseconds, at least 1 (0 would mean "no limit").
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? Int(Int32.max) : 1 }
        return Int(max(1, min(seconds * 1000, Double(Int32.max))).rounded(.up))
    }

    // MARK: - Result

    /// The response, or the error that ended the transfer, once libcurl reported it done with `code`.
    func result(of code: CURLcode) -> Result<HTTPResponse, any Error> {
        switch code {
        case CURLE_OK:
            var status = 0
            _ = dl_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPResponse(status: status, headers: collector.headers, body: collector.body))
        default:
            if let overflow = collector.overflow { return .failure(overflow) }
            if code == CURLE_FILESIZE_EXCEEDED {
                let limit = setup.options.maximumResponseBytes
                return .failure(TransportError(.responseTooLarge, CurlResponseCollector.bodyTooLarge(limit: limit)))
            }
            let detail = CurlTransport.errorDetail(buffer: String(cString: errorBuffer), code: code)
            return .failure(CurlTransport.transportError(for: code, detail: detail, host: host))
        }
    }

    /// The error for a transfer that the multi handle failed as a whole (`detail` is libcurl's text for it).
    func failure(_ detail: String) -> Result<HTTPResponse, any Error> {
        .failure(TransportError(.other, "the request to \(host) failed: \(detail)"))
    }

    private var host: String { request.url.host ?? "the server" }
}
#endif
