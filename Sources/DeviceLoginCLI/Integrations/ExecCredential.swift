import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// kubectl's exec credential protocol (client-go credential plugins, API group `client.authentication.k8s.io`):
/// the request kubectl puts in `KUBERNETES_EXEC_INFO`, and the `ExecCredential` answered on stdout. Pure: no I/O.
///
/// kubectl runs the plugin with `KUBERNETES_EXEC_INFO` set to an `ExecCredential` of the kubeconfig's `apiVersion`,
/// whose `spec.interactive` says whether kubectl passed its standard input on (`interactiveMode: Never`: false;
/// `IfAvailable`: whether its stdin is a terminal; `Always`: true). It decodes the answer as that same apiVersion,
/// uses `status.token` as the bearer token and keeps it in memory until `status.expirationTimestamp` (runs the
/// plugin again then, or after a 401).
///
/// ```swift
/// let request = try ExecCredential.request(from: environment[ExecCredential.environmentVariable])
/// let answer = try ExecCredential.answer(request.apiVersion, token: token, expiresAt: expiry)
/// ```
enum ExecCredential {
    /// The API versions answered; v1alpha1 was removed from kubectl in 1.24 and is refused.
    enum APIVersion: String, CaseIterable, Sendable {
        /// `client.authentication.k8s.io/v1` (kubectl 1.22 and later; the kubeconfig must set `interactiveMode`).
        case v1 = "client.authentication.k8s.io/v1"
        /// `client.authentication.k8s.io/v1beta1` (kubectl 1.11 and later).
        case v1beta1 = "client.authentication.k8s.io/v1beta1"
    }

    /// What kubectl asked for.
    struct Request: Sendable, Equatable {
        /// The apiVersion to answer in.
        var apiVersion: APIVersion
        /// `spec.interactive`: whether kubectl passed its standard input on. Nil when kubectl did not say: no
        /// `KUBERNETES_EXEC_INFO` (a person running the command by hand), or a kubectl older than 1.22 whose v1beta1
        /// spec has no such field.
        var interactive: Bool?

        /// Whether a device flow may start: never when kubectl said `interactive: false`, else only when a person
        /// can answer (``Interactivity/personCanAnswer(_:)``: stdin and stderr are terminals, `CI` is not set).
        func allowsSignIn(personCanAnswer: Bool) -> Bool {
            interactive != false && personCanAnswer
        }
    }

    /// The environment variable kubectl passes the request in.
    static let environmentVariable = "KUBERNETES_EXEC_INFO"
    /// The `kind` of both the request and the answer.
    static let kind = "ExecCredential"
    /// The longest request read: 64 KiB. kubectl's request is a few hundred bytes, or a few KiB with
    /// `provideClusterInfo: true` (the cluster's CA certificates); Linux passes no variable over 128 KiB anyway.
    static let maximumLength = 64 * 1024
    /// The deepest nesting of arrays and objects read: 32 (a request nests 4 deep, plus a cluster's `config`).
    static let maximumDepth = 32
    /// The apiVersion answered when there is no request: v1beta1, which every kubectl since 1.11 decodes (what
    /// kubelogin answers too).
    static let defaultAPIVersion = APIVersion.v1beta1

    /// Reads the request in `text`, the value of ``environmentVariable``.
    /// - Parameter text: The value, or nil when the variable is not set. Nil or empty is no request: the answer is
    ///   ``defaultAPIVersion`` and kubectl said nothing about interactivity.
    /// - Throws: ``DeviceLoginError`` with code ``DeviceLoginError/Code/configuration`` (exit 78) when the value is
    ///   longer than ``maximumLength``, nests deeper than ``maximumDepth``, is not JSON, is not an `ExecCredential`,
    ///   or asks for an apiVersion not in ``APIVersion``. The message names the field, never its value (but for
    ///   an apiVersion of kubectl's own group, which says what the kubeconfig asks for).
    ///
    /// One parser serves the fast lane and the full path: the strict ``JSONParser`` (RFC 8259; a member name given
    /// twice is not JSON either), never JSONDecoder, whose generic machinery would cost the lane about 1.5 MB of
    /// memory. A request the lane cannot read is refused by the full path with the same words.
    static func request(from text: String?) throws -> Request {
        guard let text, !text.isEmpty else { return Request(apiVersion: defaultAPIVersion, interactive: nil) }
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else {
            throw refusal(
                "is \(bytes.count) bytes long, more than the \(maximumLength) device-login reads",
                hint: "kubectl puts the cluster's details there with provideClusterInfo: true; device-login does not"
                    + " use them: remove provideClusterInfo from the kubeconfig's exec section")
        }
        guard !nests(bytes, deeperThan: maximumDepth) else {
            throw refusal("nests arrays or objects deeper than \(maximumDepth) levels: it is not kubectl's request")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw refusal("is not valid JSON")
        }
        guard case .object(let object) = value else { throw refusal("is not a JSON object") }
        guard case .string(let kind)? = object["kind"] else {
            throw refusal("has no kind: it is not an \(Self.kind)")
        }
        guard kind == Self.kind else { throw refusal("has a kind that is not \(Self.kind)") }
        guard case .string(let version)? = object["apiVersion"] else { throw refusal("names no apiVersion") }
        guard let apiVersion = APIVersion(rawValue: version) else {
            throw DeviceLoginError(
                .configuration,
                "kubectl asks for \(describe(version: version)); device-login answers "
                    + APIVersion.allCases.map(\.rawValue).joined(separator: " and "),
                hint: "set the kubeconfig's exec apiVersion to \(APIVersion.v1.rawValue)")
        }
        return Request(apiVersion: apiVersion, interactive: try interactive(in: object["spec"]))
    }

    /// `spec.interactive`: nil when there is no spec or no such field.
    private static func interactive(in spec: JSONValue?) throws -> Bool? {
        switch spec {
        case nil, .null?: return nil
        case .object(let fields)?:
            switch fields["interactive"] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            default: throw refusal("has a spec.interactive that is neither true nor false")
            }
        default: throw refusal("has a spec that is not an object")
        }
    }

    /// The answer: an `ExecCredential` of `apiVersion` with `status.token` and, when the token's expiry is known,
    /// `status.expirationTimestamp` in RFC 3339, UTC, to the second, rounded down (what Kubernetes' own `metav1.Time`
    /// writes; client-go parses it with Go's `time.RFC3339`).
    /// - Returns: Compact JSON with sorted keys, without a newline.
    /// - Throws: An encoding error (not expected for these values).
    static func answer(_ apiVersion: APIVersion, token: String, expiresAt: Date?) throws -> String {
        var status: JSONObject = ["token": .string(token)]
        if let expiresAt { status["expirationTimestamp"] = .string(DateText.rfc3339(expiresAt)) }
        return try TokenOutput.encode([
            "apiVersion": .string(apiVersion.rawValue), "kind": .string(kind), "status": .object(status),
        ])
    }

    /// Whether the JSON text `bytes` nests arrays and objects more than `limit` deep, counting only brackets and
    /// braces outside strings. Checked before decoding, so no input makes the decoder recurse without bound.
    static func nests(_ bytes: [UInt8], deeperThan limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return false
    }

    /// An apiVersion device-login does not answer, as a message names it: by value only when it has the shape of
    /// one of kubectl's own (`client.authentication.k8s.io/` and a Kubernetes version: `v2`, `v1alpha1`), which
    /// says what the kubeconfig asks for; anything else is not repeated, since a message never quotes what the
    /// request holds.
    private static func describe(version: String) -> String {
        let group = "client.authentication.k8s.io/"
        guard version.hasPrefix(group) else { return "an apiVersion that is not one of kubectl's" }
        var rest = Substring(version.dropFirst(group.count))
        func number() -> Bool {
            let digits = rest.prefix { ("0"..."9").contains($0) }
            rest = rest.dropFirst(digits.count)
            return (1...3).contains(digits.count)
        }
        var known = rest.first == "v"
        rest = rest.dropFirst()
        known = known && number()
        for stage in ["alpha", "beta"] where rest.hasPrefix(stage) {
            rest = rest.dropFirst(stage.count)
            known = known && number()
        }
        return known && rest.isEmpty ? "apiVersion \(version)" : "an apiVersion that is not one of kubectl's"
    }

    private static func refusal(_ problem: String, hint: String? = nil) -> DeviceLoginError {
        DeviceLoginError(
            .configuration, "\(environmentVariable) \(problem)",
            hint: hint ?? "run device-login kubectl-credential from kubectl, as an exec credential plugin")
    }
}
