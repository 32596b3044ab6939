import Foundation
import Testing

@testable import DeviceLogin

@Suite struct Base64URLTests {
    /// RFC 4648 §10's vectors, in the URL-safe alphabet without padding, and the two characters only it has.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"), ("\u{FB}\u{FF}", "w7vDvw"),
    ])
    func encodesAndDecodesTheRFCVectors(text: String, encoded: String) {
        #expect(Base64URL.encode(Array(text.utf8)) == encoded)
        #expect(Base64URL.decode(encoded, maximumBytes: 64) == Array(text.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_", maximumBytes: 3) == [0xFB, 0xFF, 0xBF])
    }

    /// RFC 7515 §2: no padding, no line breaks or whitespace, no other characters; one encoding per byte string.
    @Test(arguments: [
        "Zg==", "Zg=", "Zm9v\n", " Zm9v", "Zm 9v", "+/+/", "Zm9v!", "Z", "Zm9vY", "Zh", "Zm9", "Zm9vYmF", "é",
    ])
    func refusesWhatIsNotStrictUnpaddedBase64URL(text: String) {
        #expect(Base64URL.decode(text, maximumBytes: 64) == nil)
    }

    @Test func refusesMoreThanTheBound() {
        #expect(Base64URL.decode("Zm9vYmFy", maximumBytes: 6) == [0x66, 0x6F, 0x6F, 0x62, 0x61, 0x72])
        #expect(Base64URL.decode("Zm9vYmFy", maximumBytes: 5) == nil)
        #expect(Base64URL.decode("Zm9vYmE", maximumBytes: 4) == nil)
        #expect(Base64URL.decode(String(repeating: "A", count: 1_000_000), maximumBytes: 1024) == nil)
    }

    @Test func roundTripsEveryLengthAndByte() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            #expect(Base64URL.decode(Base64URL.encode(slice), maximumBytes: length) == slice)
        }
    }

    @Test("Every kind of collection encodes alike: an array, a slice of one, Data, and one with no contiguous bytes")
    func encodesEveryCollectionAlike() {
        for length in 0...7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 0xF0 &+ $0 &* 71) }
            let encoded = Base64URL.encode(bytes)
            #expect(Base64URL.encode(([0x00] + bytes)[1...]) == encoded)
            #expect(Base64URL.encode(Data(bytes)) == encoded)
            #expect(Base64URL.encode(bytes.lazy.map { $0 }) == encoded)
            #expect(Base64URL.decode(encoded, maximumBytes: length) == bytes)
        }
    }
}
