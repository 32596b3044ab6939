/// The secret values this process holds — client secrets, device codes, access, refresh and ID tokens — kept so that
/// no text the library or a front end shows can repeat one: the one place every server string passes before it is
/// shown or written.
///
/// A server may echo what it was sent (`"error_description": "refresh token abc… is revoked"`); the `--verbose`
/// trace hides such values through ``Redaction``, and so must every error message, every event line and every
/// status report. Values are remembered where the process comes to hold them: when a request to a token-style
/// endpoint is built (``ClientConfiguration/formRequest(to:parameters:)``: the client secret, its HTTP Basic
/// credential, and every secret form field, such as `device_code` and `refresh_token`) and when a ``TokenSet`` is
/// made (from a response or read back from storage). They are scrubbed where errors are made (``OAuthError``,
/// ``DeviceLoginError``) and again where text is shown (the event encoder, the CLI's terminal text).
///
/// Process-wide on purpose: an error made deep in a refresh must not depend on its caller passing the right values
/// along. A value shorter than ``minimumScrubbedLength`` is not remembered (it would match ordinary text),
/// and at most ``capacity-type.property`` values are kept, the oldest forgotten first.
///
/// ```swift
/// KnownSecrets.remember(refreshToken)
/// KnownSecrets.scrub("token \(refreshToken) was revoked")  // "token [redacted, 43 chars] was revoked"
/// ```
public struct KnownSecrets: Sendable {
    /// Secret values shorter than this are not scrubbed by value (they would match ordinary text); the trace
    /// (``Redaction``) hides shorter ones by name.
    public static let minimumScrubbedLength = 6

    /// The text that stands for a secret of `length` characters: `[redacted, N chars]`.
    public static func marker(length: Int) -> String {
        "[redacted, \(length) chars]"
    }

    /// How many values are kept at most: enough for every secret of many profiles and several rotations.
    public static let capacity = 256

    /// The process's secrets.
    private static let shared = Locked(KnownSecrets())

    /// The values, least recently remembered first.
    private var values: [String] = []
    /// The values' UTF-8 bytes by their first four bytes: what `scrub(_:)` looks up at each position
    /// of a text, so that scrubbing costs one lookup per byte of the text, not one search of the text per secret.
    /// Every error a server sends is scrubbed (an `authorization_pending` answer on every poll, its body included),
    /// and a process may hold hundreds of secrets: 2,000 flows in one process took 23 s of CPU instead of 1 s when
    /// each scrub searched the text once per secret.
    private var byPrefix: [UInt32: [[UInt8]]] = [:]
    /// One bit for each of 16,384 slots that a key of `byPrefix` can fall in (`filterBit(_:)`); empty while nothing
    /// is kept. `scrub(_:)` looks a position's four bytes up in `byPrefix` only when their bit is set: a dictionary
    /// lookup hashes its key (SipHash, about 120 instructions), and scrubbing paid one for every byte of every error
    /// body, some 23,000 instructions a poll; the bit costs a few, and with the most values kept (256 bits of 16,384)
    /// it stops nearly every position of a text.
    private var filter: [UInt64] = []
    /// How many values this set keeps at most.
    let capacity: Int

    /// An empty set keeping at most `capacity` values (the process's own is ``capacity-type.property``).
    init(capacity: Int = Self.capacity) {
        self.capacity = capacity
    }

    /// Remembers `value` as a secret of this process, so `scrub(_:)` hides it wherever it
    /// appears; nil and short values are ignored.
    public static func remember(_ value: String?) {
        shared.withLock { $0.remember(value) }
    }

    /// Remembers each value of `values` as a secret of this process.
    public static func remember(_ values: some Sequence<String?>) {
        shared.withLock { set in
            for value in values { set.remember(value) }
        }
    }

    /// `text` with every secret this process remembered replaced by ``marker(length:)``.
    public static func scrub(_ text: String) -> String {
        shared.withLock { $0 }.scrub(text)
    }

    /// `text` scrubbed, or nil when it is nil.
    public static func scrub(_ text: String?) -> String? {
        text.map { scrub($0) }
    }

    /// Remembers `value` as the most recent, the least recently remembered value forgotten beyond
    /// ``capacity-property``; nil and short values are ignored.
    mutating func remember(_ value: String?) {
        // Counts no more Characters than it needs: counting every Character of the tokens of one sign-in cost 21,000
        // instructions.
        guard let value,
            value.index(value.startIndex, offsetBy: Self.minimumScrubbedLength, limitedBy: value.endIndex) != nil
        else { return }
        if values.last == value { return }
        let bytes = Array(value.utf8)
        let key = Self.prefix(bytes, at: 0)
        // Known already: only then search the list (a process of many flows remembers a new device code per flow, and
        // a search of all 256 values for each cost more than the flow's own requests).
        if byPrefix[key]?.contains(bytes) == true, let index = values.firstIndex(of: value) {
            values.remove(at: index)
            values.append(value)
            return
        }
        values.append(value)
        byPrefix[key, default: []].append(bytes)
        if filter.isEmpty { filter = Array(repeating: 0, count: 16_384 / 64) }
        let bit = Self.filterBit(key)
        filter[bit.word] |= bit.mask
        while values.count > capacity {
            forget(values.removeFirst())
        }
    }

    private mutating func forget(_ value: String) {
        let bytes = Array(value.utf8)
        let key = Self.prefix(bytes, at: 0)
        byPrefix[key]?.removeAll { $0 == bytes }
        guard byPrefix[key]?.isEmpty == true else { return }
        byPrefix[key] = nil
        let bit = Self.filterBit(key)
        if !byPrefix.keys.contains(where: { Self.filterBit($0) == bit }) { filter[bit.word] &= ~bit.mask }
    }

    /// `text` with every remembered value replaced by its marker. Where values overlap or one lies inside another,
    /// the whole stretch they cover is replaced by one marker, so that no part of either is left shown.
    func scrub(_ text: String) -> String {
        guard !byPrefix.isEmpty, text.utf8.count >= Self.minimumScrubbedLength else { return text }
        let bytes = Array(text.utf8)
        var spans: [Range<Int>] = []
        var position = 0
        while position + 4 <= bytes.count {
            let key = Self.prefix(bytes, at: position)
            let bit = Self.filterBit(key)
            if filter[bit.word] & bit.mask != 0, let candidates = byPrefix[key] {
                for secret in candidates where position + secret.count <= bytes.count {
                    if bytes[position..<position + secret.count].elementsEqual(secret) {
                        Self.add(position..<position + secret.count, to: &spans)
                    }
                }
            }
            position += 1
        }
        guard !spans.isEmpty else { return text }
        var result = ""
        var kept = 0
        for span in spans {
            result += String(decoding: bytes[kept..<span.lowerBound], as: UTF8.self)
            result += Self.marker(length: String(decoding: bytes[span], as: UTF8.self).count)
            kept = span.upperBound
        }
        return result + String(decoding: bytes[kept...], as: UTF8.self)
    }

    /// Adds a match to spans found in order of their start, merging it into the last one when they overlap.
    private static func add(_ span: Range<Int>, to spans: inout [Range<Int>]) {
        if let last = spans.last, span.lowerBound < last.upperBound {
            spans[spans.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
        } else {
            spans.append(span)
        }
    }

    /// The bit of `filter` for a key: its slot is the top 14 bits of the key times a large odd constant (Fibonacci
    /// hashing), so that keys of similar text, such as base64url tokens, spread over the slots.
    static func filterBit(_ key: UInt32) -> (word: Int, mask: UInt64) {
        let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 18)
        return (slot >> 6, 1 << UInt64(slot & 63))
    }

    /// The four bytes at `position` as one key (every value has at least ``minimumScrubbedLength``).
    private static func prefix(_ bytes: [UInt8], at position: Int) -> UInt32 {
        UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16 | UInt32(bytes[position + 2]) << 8
            | UInt32(bytes[position + 3])
    }
}
