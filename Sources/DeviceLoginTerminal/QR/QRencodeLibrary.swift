import CQRencode

/// libqrencode itself: loaded with `dlopen` on the first QR code, whichever thread gets there.
///
/// The binary does not link libqrencode, so it starts on a box that lacks it: `token`, the credential helpers and a
/// sign-in all work there, and the prompt says in one line why it draws no QR code. `CQRencode` holds the table of
/// libqrencode's functions and the wrappers ``QRMatrix`` calls.
enum QRencodeLibrary {
    /// The library loaded: libqrencode's soname (Debian and Ubuntu ship it in `libqrencode4`).
    #if canImport(Darwin)
    static let defaultName = "libqrencode.4.dylib"
    #else
    static let defaultName = "libqrencode.so.4"
    #endif

    private static let loaded: Result<Void, QRMatrix.EncodingError> = load(named: defaultName)

    /// Loads libqrencode if this is the first call.
    /// - Throws: ``QRMatrix/EncodingError`` that names the library, quotes the dynamic loader's reason and says what
    ///   to install, when it cannot be loaded.
    static func ensureLoaded() throws(QRMatrix.EncodingError) {
        try loaded.get()
    }

    /// Loads the library `name` and resolves the functions ``QRMatrix`` calls.
    ///
    /// The first library that loads is the one used for the rest of the process; loading again (another name
    /// included) changes nothing. Tests call this with names that do not exist.
    /// - Parameter name: A file name the dynamic loader looks up (`libqrencode.so.4`), or a path.
    static func load(named name: String) -> Result<Void, QRMatrix.EncodingError> {
        let capacity = 512
        var reason = [CChar](repeating: 0, count: capacity)
        guard dl_qrencode_load(name, &reason, capacity) == 0 else { return .success(()) }
        let text = reason.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return .failure(
            QRMatrix.EncodingError(
                description: "libqrencode (\(name)) could not be loaded: \(text.isEmpty ? "no reason given" : text); "
                    + "install libqrencode4 for a QR code (Debian, Ubuntu: apt-get install libqrencode4)"))
    }
}
