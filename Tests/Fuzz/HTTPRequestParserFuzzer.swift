// libFuzzer target: the testing kit's HTTP/1.1 request parser (it faces whatever a browser or a test client sends to
// the loopback server), fed in chunks of varying size. Built by Scripts/fuzz.sh.
@testable import DeviceLoginTesting

@_cdecl("LLVMFuzzerTestOneInput")
public func httpRequestParserFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chunk = Int(bytes[0] % 32) + 1
    var limits = LoopbackServer.Limits()
    limits.maximumBodyBytes = 4096
    var parser = HTTPRequestParser(limits: limits, origin: "http://127.0.0.1:8080")
    var offset = 1
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        switch parser.feed(bytes[offset..<end]) {
        case .needMore:
            offset = end
        case .complete(let request):
            if (request.body?.count ?? 0) > limits.maximumBodyBytes { preconditionFailure("body over the limit") }
            return 0
        case .failure(let status, _):
            if !(400..<600).contains(status) { preconditionFailure("failure with a non-error status") }
            return 0
        }
    }
    return 0
}
