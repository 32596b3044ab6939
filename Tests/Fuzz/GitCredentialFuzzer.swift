// libFuzzer target: git's credential protocol as `device-login git-credential` reads and writes it
// (GitCredentialRequest), with its promises checked on every input: the reader's incremental blank-line check agrees
// with the whole-buffer one however the bytes arrive; input is refused only for a NUL byte or a line without '=',
// and then with a CredentialInputError; a request that is read writes back (its values without control characters)
// as lines that read back to the same request, and a value with a control character is never written; the URL of a
// request is http(s) or none. Built by Scripts/fuzz.sh.
import DeviceLogin

@testable import DeviceLoginCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func gitCredentialFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkCompleteness(bytes)
    let request: GitCredentialRequest
    do {
        request = try GitCredentialRequest(parsing: bytes)
    } catch let error as CredentialInputError {
        let hasLineWithoutEquals = lines(bytes).contains { !$0.isEmpty && !$0.contains(UInt8(ascii: "=")) }
        let allowed = bytes.contains(0) || hasLineWithoutEquals || bytes.count > GitCredentialRequest.maximumLength
        check(allowed, "refused without a NUL, a line without '=' or too many bytes")
        check(!error.message.isEmpty, "an error without a message")
        return 0
    } catch {
        preconditionFailure("not a CredentialInputError: \(error)")
    }
    check(!bytes.contains(0), "a NUL byte was accepted")
    checkRoundTrip(request)
    do {
        if let url = try request.binding() {
            check(url.scheme == "https" || url.scheme == "http", "a URL that is not http(s)")
        }
    } catch is CredentialInputError {
    } catch {
        preconditionFailure("binding() threw something else: \(error)")
    }
    return 0
}

/// The lines the reader looks at: those before the first blank one, each without its `\r`.
private func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    for whole in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let line = whole.last == UInt8(ascii: "\r") ? whole.dropLast() : whole
        if line.isEmpty { break }
        result.append(line)
    }
    return result
}

/// Fed in chunks of a size the input chooses, the incremental check says what the whole-buffer check says.
private func checkCompleteness(_ bytes: [UInt8]) {
    let step = Int(bytes.first ?? 0) % 17 + 1
    let incremental = GitCredentialRequest.completeness()
    var seen: [UInt8] = []
    var complete = false
    var start = 0
    while start < bytes.count, !complete {
        seen += bytes[start..<min(start + step, bytes.count)]
        complete = incremental(seen)
        start += step
    }
    check(complete == GitCredentialRequest.isComplete(bytes), "the incremental check disagrees")
}

/// What was read writes back to lines that read back the same; a value with a control character is refused.
private func checkRoundTrip(_ request: GitCredentialRequest) {
    let fields: [(String, String?)] = [
        ("protocol", request.protocolName), ("host", request.host), ("path", request.path),
        ("username", request.username), ("password", request.password),
    ]
    var attributes = fields.compactMap { key, value in value.map { (key: key, value: $0) } }
    attributes += request.capabilities.map { (key: "capability[]", value: $0) }
    attributes += request.wwwAuthenticate.map { (key: "wwwauth[]", value: $0) }
    let hasControl = attributes.contains { $0.value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
    let text: String
    do {
        text = try GitCredentialRequest.encode(attributes)
    } catch {
        check(hasControl, "a value without control characters was refused")
        return
    }
    check(!hasControl, "a value with a control character was written")
    check(text.utf8.filter { $0 == UInt8(ascii: "\n") }.count == attributes.count, "not one line per attribute")
    guard let again = try? GitCredentialRequest(parsing: Array(text.utf8)) else {
        preconditionFailure("the answer does not read back")
    }
    check(again == request, "the answer reads back as another request")
}

/// Stops the run with a message libFuzzer reports as a crash, keeping the input.
private func check(_ condition: Bool, _ message: StaticString) {
    if !condition { preconditionFailure("\(message)") }
}
