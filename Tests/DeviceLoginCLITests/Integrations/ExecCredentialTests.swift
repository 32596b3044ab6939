import DeviceLogin
import Foundation
import Testing

@testable import DeviceLoginCLI

@Suite("ExecCredential: KUBERNETES_EXEC_INFO read with bounds, the answer kubectl decodes")
struct ExecCredentialTests {
    private static let v1 = "client.authentication.k8s.io/v1"
    private static let v1beta1 = "client.authentication.k8s.io/v1beta1"

    @Test(
        "requests kubectl sends, and no request at all",
        arguments: [
            (nil, ExecCredential.Request(apiVersion: .v1beta1, interactive: nil)),
            ("", ExecCredential.Request(apiVersion: .v1beta1, interactive: nil)),
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1)","spec":{"interactive":false}}"#,
                ExecCredential.Request(apiVersion: .v1, interactive: false)
            ),
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1)","spec":{"interactive":true}}"#,
                ExecCredential.Request(apiVersion: .v1, interactive: true)
            ),
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1beta1)","spec":{"interactive":false}}"#,
                ExecCredential.Request(apiVersion: .v1beta1, interactive: false)
            ),
            // kubectl before 1.22: a v1beta1 spec with no interactive field.
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1beta1)","spec":{}}"#,
                ExecCredential.Request(apiVersion: .v1beta1, interactive: nil)
            ),
            (
                #"{"apiVersion":"\#(v1beta1)","kind":"ExecCredential"}"#,
                ExecCredential.Request(apiVersion: .v1beta1, interactive: nil)
            ),
            (
                #"{"apiVersion":"\#(v1)","kind":"ExecCredential","spec":{"interactive":null},"status":null}"#,
                ExecCredential.Request(apiVersion: .v1, interactive: nil)
            ),
            // provideClusterInfo: true adds the cluster, which is read past; unknown fields are ignored.
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1)","spec":{"cluster":{"server":"https://127.0.0.1:6443","#
                    + #""certificate-authority-data":"LS0tLS1CRUdJTi0tLS0t","config":{"audience":["a",{"b":[1]}]}},"#
                    + #""interactive":true,"future":"field"}}"#,
                ExecCredential.Request(apiVersion: .v1, interactive: true)
            ),
        ] as [(String?, ExecCredential.Request)])
    func requests(text: String?, expected: ExecCredential.Request) throws {
        #expect(try ExecCredential.request(from: text) == expected)
    }

    @Test(
        "what is not kubectl's request: a configuration error (78) that says what is wrong",
        arguments: [
            ("garbage", "KUBERNETES_EXEC_INFO is not valid JSON"),
            ("{", "KUBERNETES_EXEC_INFO is not valid JSON"),
            (#"{"kind":"ExecCredential","apiVersion":"\#(v1)"} trailing"#, "KUBERNETES_EXEC_INFO is not valid JSON"),
            // One parser on both paths, the strict one: a member named twice is not read as either of its values.
            (
                #"{"kind":"Pod","kind":"ExecCredential","apiVersion":"\#(v1)"}"#,
                "KUBERNETES_EXEC_INFO is not valid JSON"
            ),
            ("[]", "KUBERNETES_EXEC_INFO is not a JSON object"),
            (#""ExecCredential""#, "KUBERNETES_EXEC_INFO is not a JSON object"),
            ("42", "KUBERNETES_EXEC_INFO is not a JSON object"),
            (#"{"apiVersion":"\#(v1)"}"#, "KUBERNETES_EXEC_INFO has no kind: it is not an ExecCredential"),
            (#"{"apiVersion":"\#(v1)","kind":7}"#, "KUBERNETES_EXEC_INFO has no kind: it is not an ExecCredential"),
            (#"{"apiVersion":"v1","kind":"Pod"}"#, "KUBERNETES_EXEC_INFO has a kind that is not ExecCredential"),
            (#"{"kind":"ExecCredential"}"#, "KUBERNETES_EXEC_INFO names no apiVersion"),
            (#"{"kind":"ExecCredential","apiVersion":1}"#, "KUBERNETES_EXEC_INFO names no apiVersion"),
            (
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1"}"#,
                "kubectl asks for apiVersion client.authentication.k8s.io/v1alpha1; device-login answers "
                    + "\(v1) and \(v1beta1)"
            ),
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1)","spec":[]}"#,
                "KUBERNETES_EXEC_INFO has a spec that is not an object"
            ),
            (
                #"{"kind":"ExecCredential","apiVersion":"\#(v1)","spec":{"interactive":"yes"}}"#,
                "KUBERNETES_EXEC_INFO has a spec.interactive that is neither true nor false"
            ),
        ])
    func refused(text: String, message: String) {
        #expect {
            _ = try ExecCredential.request(from: text)
        } throws: { error in
            let error = error as? DeviceLoginError
            return error?.code == .configuration && error?.message == message
        }
    }

    @Test(
        "a refusal names the field, never its value: the request may hold a secret (a token, a cluster's key)",
        arguments: [
            #"{"apiVersion":"\#(v1)","kind":"hunter2"}"#,
            #"{"apiVersion":"client.authentication.k8s.io/hunter2","kind":"ExecCredential"}"#,
            #"{"apiVersion":"hunter2","kind":"ExecCredential"}"#,
            #"{"apiVersion":"\#(v1)","kind":"ExecCredential","spec":{"interactive":"hunter2"}}"#,
            #"{"apiVersion":"\#(v1)","kind":"ExecCredential","spec":"hunter2"}"#,
            #"{"apiVersion":"\#(v1)","kind":"ExecCredential","spec":{"cluster":{"config":"hunter2"}} x"#,
            #"{"hunter2":"#, #"["hunter2"]"#, #""hunter2""#,
            #"{"apiVersion":"\#(v1)","kind":"ExecCredential","pad":""#
                + String(repeating: "hunter2", count: 10_000) + #""}"#,
        ])
    func refusalQuotesNothing(text: String) throws {
        let error = try #require(throws: DeviceLoginError.self) { try ExecCredential.request(from: text) }
        #expect(!error.message.contains("hunter2"), "\(error.message)")
        #expect(!(error.hint ?? "").contains("hunter2"))
    }

    @Test("an apiVersion of kubectl's group is named (it says what the kubeconfig asks for), another is not")
    func unknownVersionNamed() {
        #expect {
            _ = try ExecCredential.request(
                from: #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1"}"#)
        } throws: { error in
            (error as? DeviceLoginError)?.message
                == "kubectl asks for apiVersion client.authentication.k8s.io/v1alpha1; device-login answers "
                + "\(Self.v1) and \(Self.v1beta1)"
        }
    }

    @Test(
        "longer than 64 KiB: refused by its length, before it is parsed",
        arguments: [ExecCredential.maximumLength + 1, 1_048_576])
    func huge(length: Int) {
        // Valid JSON but for its size, so only the bound can refuse it.
        let prefix = #"{"kind":"ExecCredential","apiVersion":"\#(Self.v1)","pad":""#
        let text = prefix + String(repeating: "a", count: length - prefix.utf8.count - 2) + "\"}"
        #expect(text.utf8.count == length)
        #expect {
            _ = try ExecCredential.request(from: text)
        } throws: { error in
            let error = error as? DeviceLoginError
            return error?.code == .configuration
                && error?.message
                    == "KUBERNETES_EXEC_INFO is \(length) bytes long, more than the 65536 device-login reads"
                && error?.hint?.contains("provideClusterInfo") == true
        }
    }

    @Test("exactly 64 KiB is read")
    func atTheLimit() throws {
        let prefix = #"{"kind":"ExecCredential","apiVersion":"\#(Self.v1)","pad":""#
        let text = prefix + String(repeating: "a", count: ExecCredential.maximumLength - prefix.utf8.count - 2) + "\"}"
        #expect(text.utf8.count == ExecCredential.maximumLength)
        #expect(try ExecCredential.request(from: text).apiVersion == .v1)
    }

    @Test("nested deeper than 32: refused before decoding; 32 deep is read")
    func deep() throws {
        func request(nesting depth: Int) -> String {
            // The request is level 1, `spec` 2, `cluster` 3; `config`'s arrays fill the rest.
            let arrays = depth - 3
            return #"{"kind":"ExecCredential","apiVersion":"\#(Self.v1)","spec":{"cluster":{"config":"#
                + String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays) + "}}}"
        }
        #expect(try ExecCredential.request(from: request(nesting: 32)).apiVersion == .v1)
        // 32 000 levels still fit in 64 KiB: the depth bound refuses them, not the length.
        for depth in [33, 32_000] {
            #expect(request(nesting: depth).utf8.count <= ExecCredential.maximumLength)
            #expect {
                _ = try ExecCredential.request(from: request(nesting: depth))
            } throws: { error in
                (error as? DeviceLoginError)?.message
                    == "KUBERNETES_EXEC_INFO nests arrays or objects deeper than 32 levels: it is not kubectl's request"
            }
        }
    }

    @Test(
        "the nesting count skips strings and escaped quotes",
        arguments: [
            ("{}", 1, false),
            ("{}", 0, true),
            ("[[]]", 2, false),
            ("[[[]]]", 2, true),
            (#"["[[[[", "]]]]"]"#, 1, false),
            (#"["\"[[[[", "{{{"]"#, 1, false),
            (#"["\\", [[]]]"#, 2, true),
            ("[][][][]", 1, false),
            ("", 0, false),
        ])
    func nesting(text: String, limit: Int, deeper: Bool) {
        #expect(ExecCredential.nests(Array(text.utf8), deeperThan: limit) == deeper)
    }

    @Test("the answer: the apiVersion asked for, the token, the expiry in RFC 3339 UTC to the second")
    func answers() throws {
        let expiry = Date(timeIntervalSince1970: 1_800_000_000.75)
        #expect(
            try ExecCredential.answer(.v1, token: "tok.en-1", expiresAt: expiry)
                == #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":"#
                + #"{"expirationTimestamp":"2027-01-15T08:00:00Z","token":"tok.en-1"}}"#)
        #expect(
            try ExecCredential.answer(.v1beta1, token: "t", expiresAt: nil)
                == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":"#
                + #"{"token":"t"}}"#)
    }

    @Test("a token with quotes, backslashes or controls is escaped and reads back the same")
    func escapedToken() throws {
        let token = "a\"b\\c\u{1}d\u{2028}e/f"
        let answer = try ExecCredential.answer(.v1, token: token, expiresAt: nil)
        #expect(!answer.contains("\u{1}") && !answer.contains("\u{2028}") && !answer.contains("\n"))
        let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        #expect((object?["status"] as? [String: Any])?["token"] as? String == token)
    }

    @Test(
        "a sign-in may start only when kubectl allows it and a person can answer",
        arguments: [
            (nil, true, true), (nil, false, false), (true, true, true), (true, false, false), (false, true, false),
            (false, false, false),
        ] as [(Bool?, Bool, Bool)])
    func signInAllowed(interactive: Bool?, personCanAnswer: Bool, allowed: Bool) {
        let request = ExecCredential.Request(apiVersion: .v1, interactive: interactive)
        #expect(request.allowsSignIn(personCanAnswer: personCanAnswer) == allowed)
    }
}
