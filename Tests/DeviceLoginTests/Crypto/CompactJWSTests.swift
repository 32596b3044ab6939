import Foundation
import Testing

@testable import DeviceLogin

@Suite struct CompactJWSTests {
    static func part(_ object: JSONObject) throws -> String {
        Base64URL.encode(try JSONValue.encode(object))
    }

    @Test func splitsAndDecodes() throws {
        let header = try Self.part(["alg": .string("ES256"), "kid": .string("k1"), "typ": .string("JWT")])
        let payload = try Self.part(["sub": .string("s")])
        let jws = try CompactJWS("\(header).\(payload).AQID", maximumBytes: 1024)
        #expect(jws.algorithmName == "ES256")
        #expect(jws.keyID == "k1")
        #expect(jws.signature == [1, 2, 3])
        #expect(jws.signingInput == Array("\(header).\(payload)".utf8))
        #expect(try JSONValue.decodeObject(from: Data(jws.payload)) == ["sub": .string("s")])
    }

    @Test("split at every dot, byte by byte, empty parts kept")
    func parts() {
        #expect(CompactJWS.parts(of: "ab.c.d") == ["ab", "c", "d"])
        #expect(CompactJWS.parts(of: "..") == ["", "", ""])
        #expect(CompactJWS.parts(of: "") == [""])
        #expect(CompactJWS.parts(of: "é.ü.") == ["é", "ü", ""])
        // A dot with a combining mark is one Character, and still a dot.
        #expect(
            CompactJWS.parts(of: "a.\u{301}b.c").map { Array($0.unicodeScalars) } == [["a"], ["\u{301}", "b"], ["c"]])
    }

    @Test func aKeyIDThatIsNotAStringIsNone() throws {
        let header = try Self.part(["alg": .string("ES256"), "kid": .number(7)])
        #expect(try CompactJWS("\(header).e30.AQID", maximumBytes: 1024).keyID == nil)
    }

    @Test(arguments: [
        ("", "three dot-separated parts"),
        ("a.b", "three dot-separated parts"),
        ("a.b.c.d", "three dot-separated parts"),
        ("a.b.c.d.e", "JWE"),
        ("!!.e30.AQID", "header"),
        ("e30.e30.AQID", "no alg"),
        ("eyJhbGciOiJFUzI1NiJ9.e30=.AQID", "payload"),
        ("eyJhbGciOiJFUzI1NiJ9.e30.AQID=", "signature"),
        ("eyJhbGciOiJFUzI1NiJ9=.e30.AQID", "header"),
        ("eyJhbGciOjF9.e30.AQID", "no alg"),
    ])
    func refusesMalformedTokens(text: String, reason: String) {
        #expect(throws: CompactJWS.Failure.self) { try CompactJWS(text, maximumBytes: 1024) }
        do {
            _ = try CompactJWS(text, maximumBytes: 1024)
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test func refusesCriticalExtensionsAndLongTokens() throws {
        let header = try Self.part(["alg": .string("ES256"), "crit": .array([.string("exp")]), "exp": .number(1)])
        #expect(throws: CompactJWS.Failure.self) { try CompactJWS("\(header).e30.AQID", maximumBytes: 1024) }
        let long = "eyJhbGciOiJFUzI1NiJ9.\(String(repeating: "A", count: 2000)).AQID"
        #expect(throws: CompactJWS.Failure.self) { try CompactJWS(long, maximumBytes: 1024) }
    }
}
