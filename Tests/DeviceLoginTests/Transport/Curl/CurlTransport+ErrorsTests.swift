#if canImport(CCurl)
import CCurl
import Testing
@testable import DeviceLogin

/// libcurl's result codes become kinds that callers can rely on, whatever the TLS library behind libcurl says.
@Suite("CurlTransport errors")
struct CurlTransportErrorsTests {
    @Test(
        "each libcurl failure maps to its kind",
        arguments: [
            (CURLE_COULDNT_RESOLVE_HOST, TransportError.Kind.dnsFailure),
            (CURLE_COULDNT_RESOLVE_PROXY, .dnsFailure),
            (CURLE_COULDNT_CONNECT, .connectionFailed),
            (CURLE_GOT_NOTHING, .connectionFailed),
            (CURLE_RECV_ERROR, .connectionFailed),
            (CURLE_OPERATION_TIMEDOUT, .timedOut),
            (CURLE_PEER_FAILED_VERIFICATION, .certificateVerificationFailed),
            (CURLE_SSL_CACERT_BADFILE, .certificateVerificationFailed),
            (CURLE_SSL_CONNECT_ERROR, .tlsFailure),
            (CURLE_SSL_CERTPROBLEM, .tlsFailure),
            (CURLE_SSL_CIPHER, .tlsFailure),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .tlsFailure),
            (CURLE_WEIRD_SERVER_REPLY, .invalidResponse),
            (CURLE_UNSUPPORTED_PROTOCOL, .invalidResponse),
            (CURLE_OUT_OF_MEMORY, .other),
        ])
    func kinds(code: CURLcode, kind: TransportError.Kind) {
        #expect(CurlTransport.transportError(for: code, detail: "detail", host: "auth.example.com").kind == kind)
    }

    @Test("peer verification is the same kind in OpenSSL's and GnuTLS's words, and the message quotes either")
    func verificationWhateverTheTLSLibrary() {
        let openSSL = "SSL certificate problem: self-signed certificate in certificate chain"
        let gnuTLS = "server certificate verification failed. CAfile: /etc/ssl/certs/ca-certificates.crt CRLfile: none"
        for detail in [openSSL, gnuTLS] {
            let error = CurlTransport.transportError(
                for: CURLE_PEER_FAILED_VERIFICATION, detail: detail, host: "127.0.0.1"
            )
            #expect(error == TransportError(.certificateVerificationFailed, "TLS with 127.0.0.1 failed: " + detail))
        }
    }

    @Test("a failure with no kind of its own names libcurl's code")
    func otherNamesTheCode() {
        let error = CurlTransport.transportError(for: CURLE_OUT_OF_MEMORY, detail: "Out of memory", host: "h.example")
        #expect(error.message == "the request to h.example failed: Out of memory (libcurl error 27)")
    }
}
#endif
