/// Punycode (RFC 3492): the Bootstring encoding that turns a Unicode label of a domain name into the ASCII after
/// `xn--`, as browsers show an internationalised host when they suspect a look-alike.
///
/// Only the encoder, with the parameters of RFC 3492 §5. It does none of IDNA's mapping or normalisation (case
/// folding, NFC, UTS #46): ``HostName`` lowercases a label before encoding it, which is what matters for telling a
/// person which host a link leads to.
///
/// ```swift
/// Punycode.encode("bücher".unicodeScalars)  // "bcher-kva"
/// ```
enum Punycode {
    /// RFC 3492 §5: the parameter values for Punycode.
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 128
    /// The most code points encoded: more than any DNS label can hold, and small enough that no step overflows.
    static let maximumInputLength = 1024

    /// The Punycode form of `scalars` (RFC 3492 §6.3), without the `xn--` prefix.
    ///
    /// Basic (ASCII) code points are copied in their order and case, followed by `-` when there are any, then the
    /// deltas of the others.
    ///
    /// - Parameter scalars: The label to encode.
    /// - Returns: The encoded label; nil when it has more than ``maximumInputLength`` code points.
    static func encode(_ scalars: some Sequence<Unicode.Scalar>) -> String? {
        let input = scalars.map { Int($0.value) }
        guard input.count <= maximumInputLength else { return nil }
        var output = input.filter { $0 < initialN }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        if basicCount > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        var handled = basicCount
        // With at most 1024 code points below 0x110000, delta stays below 1024 × 1025 × 0x110000 < 2^41: no
        // overflow in Int, which the RFC's 26-bit checks guard against on smaller machines.
        while handled < input.count {
            // The smallest code point not yet handled; one exists while handled < count.
            let next = input.filter { $0 >= n }.min() ?? n
            delta += (next - n) * (handled + 1)
            n = next
            for codePoint in input {
                if codePoint < n { delta += 1 }
                guard codePoint == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta: delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// RFC 3492 §6.1: the bias adaptation function.
    private static func adapt(delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// RFC 3492 §5: digit values 0–25 are `a`–`z`, 26–35 are `0`–`9`.
    private static func digit(_ value: Int) -> Character {
        let scalar = value < 26 ? 0x61 + value : 0x30 + value - 26
        return Character(Unicode.Scalar(UInt8(scalar)))
    }
}
