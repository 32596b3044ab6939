/// Unguessable values for one sign-in: the PKCE verifier, `state` and `nonce`.
enum RandomText {
    /// `bytes` bytes from the system's cryptographic generator (`getrandom` on Linux), base64url without padding.
    static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether two secrets are equal, in time that depends only on their lengths (a `state` is compared with what
    /// an attacker may send many times).
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
