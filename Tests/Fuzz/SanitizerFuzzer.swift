// libFuzzer target: the sanitiser and SafeURI, with their promises checked on every input: nothing that a
// terminal acts on survives, the length bound holds, and a URI that passes is plain http(s) ASCII with a host.
// Built by Scripts/fuzz.sh.
@testable import DeviceLogin

@_cdecl("LLVMFuzzerTestOneInput")
public func sanitizerFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let limit = Int(bytes[0] % 64) + 1
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    for asciiOnly in [false, true] {
        let clean = Sanitizer.sanitize(text, maxLength: limit, asciiOnly: asciiOnly)
        let scalars = clean.unicodeScalars
        check(scalars.count <= limit, "longer than its bound")
        for scalar in scalars {
            let value = scalar.value
            check(value >= 0x20 && value != 0x7F && !(0x80...0x9F).contains(value), "a control survived")
            let properties = scalar.properties
            check(![.format, .privateUse, .unassigned].contains(properties.generalCategory), "an invisible survived")
            check(!properties.isDefaultIgnorableCodePoint && value != 0x2800, "a blank character survived")
            check(properties.generalCategory != .spaceSeparator || value == 0x20, "a look-alike space survived")
            check(value != 0x2028 && value != 0x2029, "a line separator survived")
            if asciiOnly { check(scalar.isASCII, "non-ASCII in ASCII mode") }
        }
        check(clean.first != " " && clean.last != " ", "untrimmed")
    }
    if let uri = SafeURI(text) {
        check(uri.string == text, "SafeURI changed the text")
        check(
            uri.string.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "SafeURI let a space, control or non-ASCII through")
        let lower = uri.string.lowercased()
        check(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "SafeURI let another scheme through")
        check(!uri.host.isEmpty, "SafeURI without a host")
        check(uri.string.utf8.count <= SafeURI.maximumLength, "SafeURI longer than its bound")
    }
    return 0
}

/// Stops the run with a message libFuzzer reports as a crash, keeping the input.
private func check(_ condition: Bool, _ message: StaticString) {
    if !condition { preconditionFailure("\(message)") }
}
