@testable import DeviceLogin

// libFuzzer target: the one reader of a stored record (FileTokenStore.decode: JSONParser, then
// ProfileRecord(stored:)), which the fast lane and every other command use. Any input must give a record or a
// DeviceLoginError, never a crash or another error, and a record it reads must survive the store's write: written,
// it reads back with the same profile, tokens and revision. (Times are compared by their own write, not as dates: a
// Date counts from 2001, so a fraction of a second in 1970 seconds may move in the last bit.)
// Built by Scripts/fuzz.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func storedRecordFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let record: ProfileRecord
    do {
        record = try FileTokenStore.decode(bytes, path: "/fuzz/work.json", profile: "work")
    } catch is DeviceLoginError {
        return 0
    } catch {
        fatalError("the reader threw something other than a DeviceLoginError: \(error)")
    }
    guard let written = try? FileTokenStore.encode(record, path: "/fuzz/work.json") else {
        fatalError("a record the reader read cannot be written")
    }
    guard let again = try? FileTokenStore.decode(written, path: "/fuzz/work.json", profile: "work"),
        again.profile == record.profile, again.revision == record.revision,
        again.tokens?.accessToken == record.tokens?.accessToken, again.tokens?.tokenType == record.tokens?.tokenType,
        again.tokens?.refreshToken == record.tokens?.refreshToken,
        again.tokens?.resourceTokens.keys.sorted() == record.tokens?.resourceTokens.keys.sorted()
    else {
        fatalError("a record read, written and read again is not the same record")
    }
    return 0
}
