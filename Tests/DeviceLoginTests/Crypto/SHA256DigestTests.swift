import Testing

@testable import DeviceLogin

/// SHA-256 and HMAC-SHA-256 through libcrypto, against the published vectors.
@Suite("SHA256Digest: SHA-256 and HMAC-SHA-256")
struct SHA256DigestTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private func bytes(_ byte: UInt8, _ count: Int) -> [UInt8] {
        [UInt8](repeating: byte, count: count)
    }

    @Test(
        "FIPS 180-4 example digests",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func digests(message: String, digest: String) throws {
        #expect(hex(try SHA256Digest.hash(Array(message.utf8))) == digest)
    }

    @Test("a message whose padding spills into a second block (55, 56 and 64 bytes)")
    func paddingBoundaries() throws {
        #expect(
            hex(try SHA256Digest.hash(bytes(UInt8(ascii: "a"), 55)))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            hex(try SHA256Digest.hash(bytes(UInt8(ascii: "a"), 56)))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            hex(try SHA256Digest.hash(bytes(UInt8(ascii: "a"), 64)))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    /// RFC 4231 §4.2–4.8, the HMAC-SHA-256 results: keys shorter than, as long as and longer than the 64-byte block.
    static let rfc4231: [(key: [UInt8], data: [UInt8], mac: String)] = [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            Array(1...25), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
                    + "be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test("RFC 4231 test cases 1, 2, 3, 4, 6 and 7", arguments: rfc4231)
    func hmacVectors(key: [UInt8], data: [UInt8], mac: String) throws {
        #expect(hex(try SHA256Digest.hmac(key: key, message: data)) == mac)
    }

    @Test("RFC 4231 test case 5: the MAC truncated to 128 bits")
    func hmacTruncated() throws {
        let mac = try SHA256Digest.hmac(key: bytes(0x0c, 20), message: Array("Test With Truncation".utf8))
        #expect(mac.count == 32)
        #expect(hex(Array(mac.prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test("an empty key and an empty message are an HMAC too")
    func hmacOfNothing() throws {
        // HMAC-SHA-256 with an empty key over an empty message (as `openssl mac -digest SHA256 HMAC` computes it).
        #expect(
            hex(try SHA256Digest.hmac(key: [], message: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}
