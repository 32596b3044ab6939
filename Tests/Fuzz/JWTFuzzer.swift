@testable import DeviceLogin

// libFuzzer target: compact JWT and JWS decoding, ID-token claim and algorithm checks, JWK and JWK Set reading, strict
// base64url, and RFC 6750 Bearer challenges. Any input must give a value or an error, never a crash. Built by
// Scripts/fuzz.sh. (Nothing here calls libcrypto: the signature itself is OpenSSL's to check.)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func jwtFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? CompactJWT(text, maximumBytes: 16 << 10)
    if let claims = try? IDTokenClaims(idToken: text) {
        for now in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_800_000_000)] {
            try? claims.validate(issuer: "https://issuer.example", clientID: "client", now: now)
        }
        _ = claims.jsonObject
        let expected = IDTokenVerifier.Expectations(issuer: "https://issuer.example", clientID: "client")
        _ = IDTokenVerifier.claimsProblem(claims, expecting: expected, at: Date(timeIntervalSince1970: 1_800_000_000))
    }
    if let jws = try? CompactJWS(text, maximumBytes: 16 << 10) {
        _ = IDTokenVerifier.algorithm(jws.algorithmName, allowed: nil)
        _ = jws.keyID
    }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let set = try? JSONWebKeySet(data: bytes) {
        for key in set.keys {
            _ = key.thumbprintInput
            _ = try? JSONWebKey(jsonObject: key.jsonObject)
            _ = try? set.key(for: .es256, keyID: key.keyID)
        }
    }
    if let decoded = Base64URL.decode(text, maximumBytes: 4096) {
        precondition(Base64URL.encode(decoded) == text, "strict base64url has one encoding per byte string")
    }
    _ = BearerChallenge(header: text)
    return 0
}
