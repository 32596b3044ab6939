#if canImport(CCurl)
import CCurl

extension CurlTransport {
    /// Turns a failed libcurl transfer into a readable ``TransportError``.
    ///
    /// Messages name the host and quote libcurl's error text (which carries host names, ports, addresses and
    /// TLS diagnostics, never request bodies or headers); they never contain the URL's path, query or user info.
    /// - Parameters:
    ///   - code: libcurl's result; not `CURLE_OK`.
    ///   - detail: libcurl's error buffer, or its generic text for `code` when the buffer is empty.
    ///   - host: The request URL's host.
    static func transportError(for code: CURLcode, detail: String, host: String) -> TransportError {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return TransportError(.dnsFailure, "could not resolve host \(host)")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return TransportError(.dnsFailure, "could not resolve the proxy for \(host): \(detail)")
        case CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE,
            CURLE_PROXY:
            return TransportError(.connectionFailed, "the connection to \(host) failed: \(detail)")
        case CURLE_SEND_FAIL_REWIND:
            // A kept-alive connection died after the body went out and before any answer: libcurl would send the
            // request again, but the body cannot be rewound (see CurlTransfer), so the engine decides instead.
            return TransportError(
                .connectionFailed,
                "the connection to \(host) closed before answering; the request was not sent again")
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(.timedOut, "the request to \(host) timed out: \(detail)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            // 60 and 77, whatever the TLS library: OpenSSL says "SSL certificate problem: …", GnuTLS "server
            // certificate verification failed …", and 77 means the CA file could not be read.
            return TransportError(.certificateVerificationFailed, "TLS with \(host) failed: \(detail)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT:
            return TransportError(.tlsFailure, "TLS with \(host) failed: \(detail)")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP3:
            return TransportError(.invalidResponse, "\(host) did not answer with valid HTTP: \(detail)")
        default:
            return TransportError(.other, "the request to \(host) failed: \(detail) (libcurl error \(code.rawValue))")
        }
    }

    /// libcurl's error text made safe to show: printable, one line, at most 300 characters.
    static func errorDetail(buffer: String, code: CURLcode) -> String {
        let text = buffer.isEmpty ? String(cString: dl_curl_easy_strerror(code)) : buffer
        let printable = text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }
        return String(String(printable).trimmed().prefix(300))
    }
}
#endif
