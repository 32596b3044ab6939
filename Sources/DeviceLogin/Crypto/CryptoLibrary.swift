#if canImport(CCrypto)
import CCrypto
#endif

/// libcrypto itself (OpenSSL 3): loaded with `dlopen` exactly once, on the first use of the crypto layer,
/// whichever thread gets there.
///
/// The binary does not link libcrypto: a command that verifies and signs nothing — `token` with a valid stored
/// token, the credential helpers — never loads it. `CCrypto` holds the table of libcrypto's functions and the typed
/// wrappers the Swift side calls. When libcrypto cannot be loaded (or the platform has no `CCrypto`), every
/// operation fails with the same clear ``CryptoError``, and nothing crashes.
enum CryptoLibrary {
    /// The library loaded: OpenSSL 3's soname (Debian and Ubuntu ship it in `libssl3`).
    static let defaultName = "libcrypto.so.3"

    private static let loaded: Result<Void, CryptoError> = load(named: defaultName)

    /// Loads libcrypto if this is the first call.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/libraryUnavailable`` when it cannot be loaded.
    static func ensureLoaded() throws(CryptoError) {
        try loaded.get()
    }

    /// Loads the library `name` and resolves every function the wrappers call.
    ///
    /// The first library that loads is the one used for the rest of the process; loading again changes nothing.
    /// Tests call this with names that do not exist.
    /// - Parameter name: A file name the dynamic loader looks up (`libcrypto.so.3`), or a path.
    /// - Returns: Success, or a ``CryptoError`` that names the library, quotes the loader and says what to install.
    static func load(named name: String) -> Result<Void, CryptoError> {
        #if canImport(CCrypto)
        var reason = CryptoCall.errorBuffer()
        guard dl_crypto_load(name, &reason, CryptoCall.errorCapacity) == 0 else { return .success(()) }
        let text = CryptoCall.message(in: reason)
        return .failure(CryptoError(.libraryUnavailable, loadFailureMessage(name: name, reason: text)))
        #else
        return .failure(
            CryptoError(.libraryUnavailable, "verifying signatures needs OpenSSL 3, which this platform's build lacks")
        )
        #endif
    }

    /// What an operation says when libcrypto could not be loaded.
    static func loadFailureMessage(name: String, reason: String) -> String {
        "libcrypto (\(name)) could not be loaded: \(reason.isEmpty ? "no reason given" : reason); install OpenSSL 3 "
            + "(Debian, Ubuntu: apt-get install libssl3; Fedora: dnf install openssl-libs)"
    }
}

#if canImport(CCrypto)
/// What every call into `CCrypto` shares: the buffer a wrapper writes its reason into, and reading it back.
enum CryptoCall {
    /// The size of the buffer a wrapper writes its reason into.
    static let errorCapacity = 512

    /// A zeroed buffer for a wrapper's reason: pass `&buffer, CryptoCall.errorCapacity`.
    static func errorBuffer() -> [CChar] {
        [CChar](repeating: 0, count: errorCapacity)
    }

    /// The NUL-terminated text in `buffer`.
    static func message(in buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
