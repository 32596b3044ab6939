@testable import DeviceLogin

// libFuzzer target: the server-reply parser and every wire type read from its result, for any body with any status
// and content type. Built by Scripts/fuzz.sh; a crash, a trap or an AddressSanitizer report is a bug.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func serverReplyFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Byte 0 picks the status, byte 1 the content type and a Retry-After; the rest is the body.
    let statuses = [200, 201, 204, 400, 401, 403, 404, 408, 429, 500, 502, 503]
    let status = statuses[Int(bytes[0]) % statuses.count]
    let types = [
        "application/json", "application/x-www-form-urlencoded", "text/plain", "application/json; charset=utf-8", "",
    ]
    var headers: [HTTPHeader] = []
    let type = types[Int(bytes[1] & 0x7) % types.count]
    if !type.isEmpty { headers.append(HTTPHeader("Content-Type", type)) }
    if bytes[1] & 0x80 != 0 { headers.append(HTTPHeader("Retry-After", String(Int(bytes[1] & 0x7f) * 997))) }
    let response = HTTPResponse(status: status, headers: headers, body: Data(bytes.dropFirst(2)))
    _ = PollOutcome(response)
    if case .success(let object) = ServerReply(response) {
        _ = try? TokenResponse(jsonObject: object)
        _ = try? DeviceAuthorizationResponse(jsonObject: object)
        _ = try? AuthorizationServerMetadata(jsonObject: object)
        _ = try? UserInfo(jsonObject: object)
        _ = try? IDTokenClaims(jsonObject: object)
        if let reply = try? TokenResponse(jsonObject: object) {
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let tokens = TokenSet(response: reply, receivedAt: now)
            _ = tokens.accessToken(validAfter: now)
            _ = try? JSONEncoder().encode(tokens)
        }
        if let authorization = try? DeviceAuthorizationResponse(jsonObject: object) {
            _ =
                DeviceAuthorization(response: authorization, receivedAt: Date(timeIntervalSince1970: 0))
                .deadlineElapsed
        }
    }
    return 0
}
