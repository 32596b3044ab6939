import Testing

@testable import DeviceLoginTerminal

/// libqrencode is loaded on the first QR code; a library that cannot be loaded is a clear error, not a crash, and
/// leaves the one in use (if any) in place.
@Suite("QRencodeLibrary")
struct QRencodeLibraryTests {
    @Test("A library that does not exist: the error names it, quotes the loader and says what to install")
    func missingLibrary() throws {
        let result = QRencodeLibrary.load(named: "libqrencode-device-login-test-missing.so.9")
        guard case .failure(let error) = result else {
            Issue.record("a missing library loaded")
            return
        }
        let text = error.description
        #expect(text.hasPrefix("libqrencode (libqrencode-device-login-test-missing.so.9) could not be loaded: "))
        #expect(text.contains("cannot open shared object file"), "\(text)")
        #expect(text.hasSuffix("install libqrencode4 for a QR code (Debian, Ubuntu: apt-get install libqrencode4)"))
    }

    @Test("An empty name is refused before the dynamic loader sees it")
    func emptyName() throws {
        guard case .failure(let error) = QRencodeLibrary.load(named: "") else {
            Issue.record("an empty name loaded")
            return
        }
        #expect(error.description.contains("could not be loaded: no library name;"))
    }

    @Test("After a failed load of another name, the installed library still encodes")
    func failedLoadChangesNothing() throws {
        _ = QRencodeLibrary.load(named: "libqrencode-device-login-test-missing.so.9")
        let matrix = try QRMatrix(encoding: "https://example.com/device")
        #expect(matrix.size >= 21)
    }
}
