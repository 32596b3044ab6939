import Testing

@testable import DeviceLogin

@Suite struct CryptoLibraryTests {
    @Test func aMissingLibraryIsAClearError() throws {
        let result = CryptoLibrary.load(named: "libcrypto-does-not-exist.so.3")
        guard case .failure(let error) = result else {
            Issue.record("loading a library that does not exist succeeded")
            return
        }
        #expect(error.code == .libraryUnavailable)
        #expect(error.message.contains("libcrypto (libcrypto-does-not-exist.so.3) could not be loaded"))
        #expect(error.message.contains("libcrypto-does-not-exist.so.3: cannot open shared object file"))
        #expect(error.message.contains("apt-get install libssl3"))
        #expect(CryptoLibrary.load(named: "").isFailure)
    }

    /// Loading again, even another name, changes nothing: the first library stays in use.
    @Test func loadsOnceAndStays() throws {
        try CryptoLibrary.ensureLoaded()
        #expect(!CryptoLibrary.load(named: CryptoLibrary.defaultName).isFailure)
        #expect(try SHA256Digest.hash(Array("abc".utf8)).count == 32)
    }

    /// FIPS 180-4's "abc" and empty-string vectors.
    @Test func sha256KnownAnswers() throws {
        #expect(try SHA256Digest.base64URL(of: "abc") == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
        #expect(try SHA256Digest.base64URL(of: "") == "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
