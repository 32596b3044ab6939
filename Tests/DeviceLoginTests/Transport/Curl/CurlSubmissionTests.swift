#if canImport(CCurl)
import Foundation
import Testing
@testable import DeviceLogin

/// CurlSubmission resumes its caller exactly once, whichever of result and cancellation comes first (a checked
/// continuation resumed twice would stop the test process).
@Suite("CurlSubmission")
struct CurlSubmissionTests {
    private let submission = CurlSubmission(
        request: HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:1/")!),
        setup: CurlTransfer.Setup(
            options: TransportOptions(),
            proxy: CurlTransport.ProxySettings(proxy: "", noProxy: nil),
            headerLines: []
        )
    )

    @Test func theResultReachesTheCallerAndALaterCancellationDoesNothing() async throws {
        let response = try await withCheckedThrowingContinuation { continuation in
            #expect(submission.wait(on: continuation))
            submission.finish(with: .success(HTTPResponse(status: 204)))
            #expect(!submission.cancel())
            submission.finish(with: .success(HTTPResponse(status: 500)))
        }

        #expect(response.status == 204)
        #expect(!submission.isCancelled)
    }

    @Test func cancellationReachesTheCallerAtOnceAndALaterResultIsDropped() async {
        await #expect(throws: CancellationError.self) {
            try await withCheckedThrowingContinuation { continuation in
                #expect(submission.wait(on: continuation))
                #expect(submission.cancel())
                #expect(!submission.cancel())
                submission.finish(with: .success(HTTPResponse(status: 200)))
            }
        }

        #expect(submission.isCancelled)
    }

    @Test func aSubmissionCancelledBeforeItsCallerWaitsIsNeverHandedOn() async {
        #expect(submission.cancel())

        await #expect(throws: CancellationError.self) {
            try await withCheckedThrowingContinuation { continuation in
                #expect(!submission.wait(on: continuation))
                submission.finish(with: .failure(TransportError(.other, "too late")))
            }
        }
    }
}
#endif
