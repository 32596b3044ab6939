#if canImport(CCurl)
import CCurl
import Testing
@testable import DeviceLogin

/// Loading libcurl at run time: a clear error when it cannot be loaded, and the library in use never replaced.
@Suite("CurlLibrary")
struct CurlLibraryTests {
    @Test func aLibraryThatDoesNotExistFailsWithAClearError() throws {
        let name = "libdevicelogin-test-no-such-library.so.4"

        let result = CurlLibrary.load(named: name)

        guard case .failure(let error) = result else {
            Issue.record("loading \(name) succeeded")
            return
        }
        #expect(error.kind == .other)
        #expect(error.message.hasPrefix("libcurl (\(name)) could not be loaded: "))
        // The dynamic loader's own reason, as dlerror gives it.
        #expect(error.message.contains("\(name): cannot open shared object file"))
        #expect(
            error.message.hasSuffix(
                "; install libcurl4 (Debian, Ubuntu: apt-get install libcurl4; Fedora: dnf install libcurl)"))
    }

    @Test func aLibraryWithoutLibcurlsFunctionsNamesTheMissingOne() {
        let result = CurlLibrary.load(named: "libc.so.6")

        guard case .failure(let error) = result else {
            Issue.record("libc.so.6 was taken for libcurl")
            return
        }
        #expect(error.message.hasPrefix("libcurl (libc.so.6) could not be loaded: "))
        #expect(error.message.contains("undefined symbol: curl_global_init"))
    }

    @Test func anEmptyNameIsRefusedWithoutCallingTheLoader() {
        let result = CurlLibrary.load(named: "")

        guard case .failure(let error) = result else {
            Issue.record("an empty library name loaded")
            return
        }
        #expect(error.message == CurlLibrary.loadFailureMessage(name: "", reason: "no library name"))
    }

    @Test func failedLoadsLeaveTheLibraryInUseWorking() throws {
        try CurlLibrary.initialize()
        _ = CurlLibrary.load(named: "libdevicelogin-test-no-such-library.so.4")
        _ = CurlLibrary.load(named: "libc.so.6")

        #expect(dl_curl_is_loaded() == 1)
        try CurlLibrary.load(named: CurlLibrary.defaultName).get()
        try CurlLibrary.initialize()
        let easy = try #require(dl_curl_easy_init())
        #expect(dl_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1) == CURLE_OK)
        dl_curl_easy_cleanup(easy)
    }

    @Test(arguments: [
        ("libcurl.so.4", "boom", "libcurl (libcurl.so.4) could not be loaded: boom; install libcurl4"),
        ("/opt/x/libcurl.so", "", "libcurl (/opt/x/libcurl.so) could not be loaded: no reason given; install libcurl4"),
    ])
    func theMessageNamesTheLibraryTheReasonAndTheFix(name: String, reason: String, start: String) {
        let message = CurlLibrary.loadFailureMessage(name: name, reason: reason)

        #expect(message.hasPrefix(start))
    }
}
#endif
