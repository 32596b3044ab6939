#if canImport(CCurl)
import CCurl
import Synchronization

/// libcurl's process-wide state: `curl_global_init` runs exactly once, on first use, whichever thread gets there.
///
/// `curl_global_init` is not thread-safe and must not run twice concurrently; a `static let` initialiser is
/// (Swift runs it once, under a lock), so the call lives in one.
enum CurlLibrary {
    /// How many times `curl_global_init` has been called (at most once; tests read it).
    static let initializationCount = Atomic<Int>(0)

    private static let initialized: Bool = {
        initializationCount.add(1, ordering: .relaxed)
        return dl_curl_global_init_default() == CURLE_OK
    }()

    /// Initialises libcurl if this is the first call.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` when libcurl cannot be initialised.
    static func initialize() throws(TransportError) {
        guard initialized else {
            throw TransportError(.other, "libcurl could not be initialised")
        }
    }
}
#endif
