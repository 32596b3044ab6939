@testable import DeviceLogin

// libFuzzer target: the fast lane's reading of a stored record (JSONParser, RecordGlance) against the full
// decoder's. Any input must give a value or nil, never a crash, and:
// - JSON the parser accepts decodes to the same value with JSONDecoder (the parser is never more lenient);
// - where the glance and FileTokenStore.decode both read a record, they agree on the token, its type and expiry, the user
//   name, the bindings and the client authentication;
// - the glance reads every record the parser and the decoder read (the lane declines no well-formed record).
// Built by Scripts/fuzz.sh.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func storedRecordFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parsed = try? JSONParser.parse(bytes)
    if let value = parsed {
        guard let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), decoded == value else {
            fatalError("JSONParser accepted what JSONDecoder reads otherwise")
        }
    }
    let glance = RecordGlance(bytes, profile: "work")
    guard let record = try? FileTokenStore.decode(bytes, path: "/fuzz/work.json", profile: "work") else { return 0 }
    guard let glance else {
        // Refusing what JSONDecoder is lenient about (duplicate keys, say) is the parser's choice; declining
        // well-formed JSON that decodes is a glance bug.
        if parsed != nil { fatalError("RecordGlance declined a record the decoder reads") }
        return 0
    }
    let profile = record.profile
    guard glance.accessToken == record.tokens?.accessToken, glance.tokenType == record.tokens?.tokenType,
        glance.expiresAt == record.tokens?.expiresAt,
        glance.username == profile.username, glance.bindings == profile.bindings,
        glance.clientAuthentication == profile.clientAuthentication,
        glance.hasClientSecret == (profile.clientSecret != nil)
    else {
        fatalError("RecordGlance and the decoder disagree")
    }
    return 0
}
