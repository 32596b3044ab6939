#if canImport(CCurl)
import CCurl
import Synchronization

/// libcurl itself: loaded with `dlopen` and initialised (`curl_global_init`) exactly once, on the first request,
/// whichever thread gets there.
///
/// The binary does not link libcurl. A command that sends nothing — `token` with a valid stored token, the
/// credential helpers — therefore never loads it or the libraries it depends on (TLS, Kerberos, LDAP, IDN…: about
/// 36), which would otherwise cost more start-up time and memory than the rest of the tool. `CCurl` holds the table
/// of libcurl's functions and the typed wrappers the transport calls.
///
/// `curl_global_init` is not thread-safe and must not run twice concurrently; a `static let` initialiser is (Swift
/// runs it once, under a lock), so the load and the call live in one. When libcurl cannot be loaded, every request
/// fails with the same clear ``TransportError``, and nothing crashes.
enum CurlLibrary {
    /// The library loaded: libcurl's soname on Linux (Debian and Ubuntu ship it in `libcurl4`).
    static let defaultName = "libcurl.so.4"

    /// How many times `curl_global_init` has been called (at most once; tests read it).
    static let initializationCount = Atomic<Int>(0)

    private static let initialized: Result<Void, TransportError> = {
        if case .failure(let error) = load(named: defaultName) { return .failure(error) }
        initializationCount.add(1, ordering: .relaxed)
        guard dl_curl_global_init_default() == CURLE_OK else {
            return .failure(TransportError(.other, "libcurl could not be initialised"))
        }
        return .success(())
    }()

    /// Loads libcurl and initialises it if this is the first call.
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/other`` when libcurl cannot be loaded (see
    ///   ``load(named:)``) or initialised.
    static func initialize() throws(TransportError) {
        try initialized.get()
    }

    /// Loads the library `name` and resolves every libcurl function the transport calls.
    ///
    /// The first library that loads is the one the transport uses for the rest of the process; loading again
    /// (another name included) changes nothing. Tests call this with names that do not exist.
    /// - Parameter name: A file name the dynamic loader looks up (`libcurl.so.4`), or a path.
    /// - Returns: Success, or a ``TransportError`` of kind ``TransportError/Kind/other`` that names the library,
    ///   quotes the dynamic loader's reason and says what to install.
    static func load(named name: String) -> Result<Void, TransportError> {
        let capacity = 512
        var reason = [CChar](repeating: 0, count: capacity)
        guard dl_curl_load(name, &reason, capacity) == 0 else { return .success(()) }
        let text = reason.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return .failure(TransportError(.other, loadFailureMessage(name: name, reason: text)))
    }

    /// What a request says when libcurl could not be loaded.
    static func loadFailureMessage(name: String, reason: String) -> String {
        "libcurl (\(name)) could not be loaded: \(reason.isEmpty ? "no reason given" : reason); install libcurl4 "
            + "(Debian, Ubuntu: apt-get install libcurl4; Fedora: dnf install libcurl)"
    }
}
#endif
