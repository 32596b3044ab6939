import DeviceLogin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes device codes, user codes and tokens: random, or the same every run when seeded.
struct CodeGenerator: RandomNumberGenerator {
    /// RFC 8628 §6.1's example alphabet: twenty consonants, no vowels (no words) and nothing that looks alike.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    private var seededState: UInt64?
    private var system = SystemRandomNumberGenerator()
    /// Random words from the system not yet used: drawn 32 (256 bytes, the most `getentropy` gives) at a time, for a device authorization takes a dozen
    /// (a token, a user code) and `SystemRandomNumberGenerator` makes one system call per word, under the server's lock.
    private var pool: [UInt64] = []

    /// Creates a generator; with a seed, its output is the same on every run.
    init(seed: UInt64?) {
        seededState = seed
    }

    mutating func next() -> UInt64 {
        guard var state = seededState else { return nextFromSystem() }
        // SplitMix64: small, fast and good enough for test data.
        state &+= 0x9E37_79B9_7F4A_7C15
        seededState = state
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// The next word of ``pool``, which is refilled from the system's random source in one call when empty (one
    /// word at a time from `SystemRandomNumberGenerator` where that call is not available or fails).
    private mutating func nextFromSystem() -> UInt64 {
        if pool.isEmpty {
            pool = [UInt64](repeating: 0, count: 32)
            let filled = pool.withUnsafeMutableBytes { Self.fillFromSystem($0) }
            if !filled { pool = (0..<32).map { _ in system.next() } }
        }
        return pool.removeLast()
    }

    /// Fills `buffer` from the operating system's random source in one call; false when it could not.
    private static func fillFromSystem(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        #if canImport(Glibc) || canImport(Musl)
        return getentropy(base, buffer.count) == 0
        #elseif canImport(Darwin)
        arc4random_buf(base, buffer.count)
        return true
        #else
        return false
        #endif
    }

    /// A token of `byteCount` random bytes in base64url without padding (32 bytes: 43 characters).
    mutating func token(byteCount: Int = 32) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount + 7)
        while bytes.count < byteCount {
            withUnsafeBytes(of: next()) { bytes.append(contentsOf: $0) }
        }
        return Base64URL.encode(bytes.prefix(byteCount))
    }

    /// A user code such as `WDJB-MJHT`: eight letters of ``userCodeAlphabet`` in two groups of four.
    mutating func userCode() -> String {
        let letters = (0..<8).map { _ in Self.userCodeAlphabet[Int(next(upperBound: UInt64(20)))] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }
}
