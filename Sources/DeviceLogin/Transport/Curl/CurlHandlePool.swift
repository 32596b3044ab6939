#if canImport(CCurl)
import CCurl

/// The worker thread's idle libcurl easy handles, kept for the next transfers instead of being freed.
///
/// A reused handle keeps what `curl_easy_reset` leaves: its DNS cache entries and its link to the worker's share
/// handle, through which every handle sees the same TLS sessions. Connections themselves live in the multi
/// handle's cache, whichever easy handle opened them. At most ``capacity`` handles wait here; one returned to a
/// full pool is freed. Used by the worker thread only.
struct CurlHandlePool {
    /// The most idle handles kept.
    let capacity: Int
    /// The share handle every lent handle is attached to.
    private let share: UnsafeMutableRawPointer
    private var idle: [UnsafeMutableRawPointer] = []

    /// Creates an empty pool.
    /// - Parameters:
    ///   - capacity: The most idle handles kept.
    ///   - share: The share handle (sharing TLS sessions) to attach every handle to.
    init(capacity: Int, share: UnsafeMutableRawPointer) {
        self.capacity = capacity
        self.share = share
    }

    /// Lends a handle with default options, attached to the share handle.
    /// - Returns: The handle, or `nil` when libcurl cannot create one.
    mutating func take() -> UnsafeMutableRawPointer? {
        guard let easy = idle.popLast() ?? dl_curl_easy_init() else { return nil }
        // Set again on every use: curl_easy_reset keeps the link but forgets the share's session-cache size.
        guard dl_curl_setopt_pointer(easy, CURLOPT_SHARE, share) == CURLE_OK else {
            dl_curl_easy_cleanup(easy)
            return nil
        }
        return easy
    }

    /// Takes back a handle that is no longer in the multi handle: resets it for the next use, or frees it when
    /// the pool is full.
    mutating func recycle(_ easy: UnsafeMutableRawPointer) {
        guard idle.count < capacity else {
            dl_curl_easy_cleanup(easy)
            return
        }
        dl_curl_easy_reset(easy)
        idle.append(easy)
    }
}
#endif
