@testable import DeviceLogin

// libFuzzer target: compact JWT decoding and ID-token claim checks, and RFC 6750 Bearer challenges. Any input must
// give a value or an error, never a crash. Built by Scripts/fuzz.sh.
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
    }
    _ = BearerChallenge(header: text)
    return 0
}
