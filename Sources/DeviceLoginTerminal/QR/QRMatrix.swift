import CQRencode

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The modules of a QR code, made by libqrencode (loaded on the first code: ``QRencodeLibrary``).
///
/// Encodes in 8-bit (byte) mode, case-sensitively, at the smallest version that holds the data. The default error
/// correction is **M** (15 % of the codewords recoverable), not L (7 %): a phone photographs a lit screen, where
/// glare, moiré and the thin gaps some fonts leave between block characters damage modules; for the short
/// verification URIs this encodes, M costs at most one version (4 modules a side) more than L.
///
/// ```swift
/// let matrix = try QRMatrix(encoding: "https://auth.example.com/device?user_code=WDJB-MJHT")
/// print(matrix.size, matrix[row: 0, column: 0])   // 33 true
/// ```
public struct QRMatrix: Sendable, Hashable {
    /// How much of the symbol can be damaged and still read.
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        /// Level L: about 7 % of codewords recoverable.
        case low
        /// Level M: about 15 % of codewords recoverable.
        case medium

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            }
        }

        /// The most bytes a version 40 symbol holds at this level in byte mode (ISO/IEC 18004 table 7).
        var byteCapacity: Int {
            switch self {
            case .low: 2953
            case .medium: 2331
            }
        }
    }

    /// Why a text could not be encoded.
    public struct EncodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A short account of the failure, e.g. "the text is too long for a QR code (3000 bytes)".
        public let description: String
    }

    /// The number of modules on a side: 21 for version 1, 4 more for each version up to 177.
    public let size: Int
    /// The QR version, 1–40.
    public let version: Int
    /// The modules, row by row; `true` is dark.
    public let modules: [Bool]

    /// Encodes `text` as a QR code.
    ///
    /// - Parameters:
    ///   - text: The text, usually a URI. Must not be empty or contain NUL.
    ///   - errorCorrection: The error correction level; ``ErrorCorrection/medium`` by default.
    /// - Throws: ``EncodingError`` when the text is empty, contains NUL, does not fit in a version 40 symbol, or
    ///   libqrencode cannot be loaded or fails.
    public init(encoding text: String, errorCorrection: ErrorCorrection = .medium) throws {
        let byteCount = text.utf8.count
        guard byteCount > 0 else { throw EncodingError(description: "there is nothing to encode") }
        guard !text.utf8.contains(0) else { throw EncodingError(description: "the text contains a NUL character") }
        guard byteCount <= errorCorrection.byteCapacity else {
            throw EncodingError(description: "the text is too long for a QR code (\(byteCount) bytes)")
        }
        try QRencodeLibrary.ensureLoaded()
        errno = 0
        // Version 0: the smallest version that holds the data. Hint QR_MODE_8 with case sensitivity on: bytes are
        // encoded as they are (libqrencode still uses numeric and alphanumeric segments where they are shorter).
        guard let code = dl_qrencode_encode_string(text, 0, errorCorrection.level, QR_MODE_8, 1) else {
            let reason = errno
            switch reason {
            case ERANGE: throw EncodingError(description: "the text is too long for a QR code (\(byteCount) bytes)")
            case ENOMEM: throw EncodingError(description: "out of memory while making the QR code")
            default: throw EncodingError(description: "libqrencode failed (errno \(reason))")
            }
        }
        defer { dl_qrencode_free(code) }
        let width = Int(code.pointee.width)
        let version = Int(code.pointee.version)
        guard (1...40).contains(version), width == 17 + 4 * version, let data = code.pointee.data else {
            throw EncodingError(description: "libqrencode returned a malformed symbol")
        }
        // Bit 0 of each byte is the module's colour; the other bits say what the module is for.
        let buffer = UnsafeBufferPointer(start: data, count: width * width)
        self.size = width
        self.version = version
        self.modules = buffer.map { $0 & 1 == 1 }
    }

    /// Creates a matrix from modules, e.g. ones read back from a rendering.
    ///
    /// - Parameters:
    ///   - size: The number of modules on a side: 17 + 4 × version.
    ///   - modules: `size × size` values, row by row; `true` is dark.
    /// - Returns: `nil` when the size is not a QR size or the count does not match.
    public init?(size: Int, modules: [Bool]) {
        guard size >= 21, size <= 177, (size - 17) % 4 == 0, modules.count == size * size else { return nil }
        self.size = size
        self.version = (size - 17) / 4
        self.modules = modules
    }

    /// Whether the module at `row`, `column` is dark; positions outside the symbol (the quiet zone) are light.
    public subscript(row row: Int, column column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }
}
