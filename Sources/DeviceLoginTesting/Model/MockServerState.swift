import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a ``MockAuthorizationServer`` knows, and the protocol rules that change it.
///
/// A value type mutated under the server's lock, one request at a time, so every rule reads as plain sequential
/// code. Requests are answered here without waiting; delays are served by the server afterwards.
struct MockServerState {
    typealias Server = MockAuthorizationServer

    /// One issued device code.
    ///
    /// A class, so that the table of codes holds a reference per code (24 bytes a slot with its key) rather than the
    /// whole record (208): a table has up to twice the slots it fills, and grows by copying them all
    /// (device-login-bench: 340 bytes per waiting flow as values, about 250 as references). Only the state, under the
    /// server's lock, holds them.
    final class DeviceCode {
        enum Decision { case none, approved, denied }

        let userCode: String
        let clientID: String
        let scopes: [String]
        let resources: [String]
        let issuedAt: Duration
        let expiresAt: Duration
        /// The interval in force: the enforced one plus 5 s per `slow_down`.
        var interval: Duration
        var script: Server.Script
        var polls = 0
        var lastPollAt: Duration?
        /// Polls answered but not yet delivered (held back by a delay).
        var inFlight = 0
        var decision = Decision.none
        var consumed = false
        var forcedExpiry = false
        var expiryAnswered = false
        /// The thumbprint of the DPoP key the device authorization request was proven with: every poll must be proven
        /// with the same key (draft-parecki-oauth-dpop-device-flow).
        let dpopKey: String?

        init(
            userCode: String, clientID: String, scopes: [String], resources: [String], issuedAt: Duration,
            expiresAt: Duration, interval: Duration, script: Server.Script, dpopKey: String?
        ) {
            self.userCode = userCode
            self.clientID = clientID
            self.scopes = scopes
            self.resources = resources
            self.issuedAt = issuedAt
            self.expiresAt = expiresAt
            self.interval = interval
            self.script = script
            self.dpopKey = dpopKey
        }

        func isExpired(at time: Duration) -> Bool {
            forcedExpiry || time >= expiresAt
        }
    }

    /// What one approval granted: refreshing keeps the grant, revoking its refresh token ends it.
    ///
    /// A class, as ``DeviceCode``: the table of grants holds a reference per grant, not the 72-byte record, so that
    /// it does not grow by copying megabytes while thousands of flows get their tokens at once (device-login-bench:
    /// the peak RSS of 10,000 flows is reached then).
    final class Grant {
        let clientID: String
        let scopes: [String]
        let resources: [String]
        var refreshToken: String?
        var accessTokens: Set<String> = []
        /// The thumbprint of the DPoP key the grant's tokens are bound to (RFC 9449 §5, §6), nil for Bearer tokens.
        var dpopKey: String?

        init(clientID: String, scopes: [String], resources: [String], dpopKey: String?) {
            self.clientID = clientID
            self.scopes = scopes
            self.resources = resources
            self.dpopKey = dpopKey
        }
    }

    struct AccessToken {
        var grantID: Int
        var expiresAt: Duration
        /// The thumbprint of the DPoP key the token is bound to (its `cnf.jkt`), nil for a Bearer token.
        var dpopKey: String?
    }

    /// What an incoming request says, decoded once.
    struct Incoming {
        var request: HTTPRequest
        var time: Duration
        var path: String
        /// The form fields of a form-encoded body, in order.
        var form: [(String, String)]
        /// Whether the body is declared `application/x-www-form-urlencoded`.
        var isForm: Bool

        init(_ request: HTTPRequest, at time: Duration) {
            self.request = request
            self.time = time
            let path = request.url.path
            self.path = path.isEmpty ? "/" : path
            isForm = request.header("Content-Type").map(Self.isFormMediaType) ?? false
            form = isForm ? FormEncoding.decode(request.bodyText) : []
        }

        /// The first value of form field `name`, when not empty.
        func value(_ name: String) -> String? {
            guard let value = form.first(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
            return value
        }

        /// Every value of form field `name`.
        func values(_ name: String) -> [String] {
            form.filter { $0.0 == name }.map(\.1)
        }

        /// Whether a `Content-Type` value declares `application/x-www-form-urlencoded` (any case, spaces and
        /// parameters aside).
        static func isFormMediaType(_ value: String) -> Bool {
            // The value every client of the package sends, compared without the `Character` work below.
            if value == "application/x-www-form-urlencoded" { return true }
            let mediaType = value.split(separator: ";").first?.filter { $0 != " " }.lowercased()
            return mediaType == "application/x-www-form-urlencoded"
        }

        /// Whether the request asks for JSON.
        var acceptsJSON: Bool {
            guard let accept = request.header("Accept") else { return false }
            // The value every client of the package sends, compared before the general (and slower) search.
            return accept == "application/json" || accept.lowercased().contains("application/json")
        }
    }

    var configuration: Server.Configuration
    var layout: IssuerLayout
    var generator: CodeGenerator
    let wallClock: @Sendable () -> Date

    var deviceCodes: [String: DeviceCode] = [:]
    /// The scopes of the device code issued last, whose array the next code shares when it asks for the same.
    var lastScopes: [String] = []
    /// The authorization codes issued by the code grant, by code.
    var authorizationCodes: [String: IssuedCode] = [:]
    /// Device codes in the order issued.
    var issueOrder: [String] = []
    /// Normalised user code (upper case, no dashes or spaces) to device code.
    var userCodes: [String: String] = [:]
    var grants: [Int: Grant] = [:]
    var nextGrantID = 0
    var accessTokens: [String: AccessToken] = [:]
    var refreshTokens: [String: Int] = [:]
    /// The keys the key set publishes, oldest first; ID tokens are signed with the last.
    var signingKeys: [MockSigningKey] = []

    var records: [Server.RecordedRequest] = []
    var droppedRecordCount = 0
    var violations: [Server.Violation] = []
    var revocations: [Server.Revocation] = []
    var deviceAuthorizationRequestCount = 0
    var refreshRequestCount = 0
    /// The nonce the device authorization and token endpoints demand (RFC 9449 §8), once made.
    var authorizationServerNonce: String?
    /// The nonce the resource endpoint demands (RFC 9449 §9), once made.
    var resourceNonce: String?
    /// The `jti`s of the proofs seen within the `iat` window, with their `iat`.
    var seenProofs: [String: Int64] = [:]
    /// What the current request's DPoP proof came to, for its record.
    var proofCheck: Server.ProofCheck?

    init(configuration: Server.Configuration, wallClock: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        layout = IssuerLayout(configuration.issuer)
        generator = CodeGenerator(seed: configuration.seed)
        self.wallClock = wallClock
    }

    // MARK: - Requests

    /// Answers one request, read as `incoming`, and records it.
    mutating func process(_ incoming: Incoming) -> Reply {
        let endpoint = layout.endpoint(for: incoming.path, paths: configuration.paths)
        proofCheck = nil
        var reply: Reply
        do {
            switch endpoint {
            case .openIDConfiguration, .authorizationServerMetadata: reply = discovery(incoming)
            case .deviceAuthorization: reply = try deviceAuthorization(incoming)
            case .token: reply = try token(incoming)
            case .revocation: reply = try revocation(incoming)
            case .userinfo: reply = userinfo(incoming)
            case .jwks: reply = jwks(incoming)
            case .resource: reply = resource(incoming)
            case .verificationPage: reply = approvalPage(incoming)
            case .authorization: reply = authorize(incoming)
            case .unknown: reply = WireWriter.plain(status: 404, "Not Found")
            }
        } catch {
            reply = error.reply
        }
        // RFC 9449 §8: a server that demands nonces sends the current one with its answers, errors and successes.
        if configuration.dpop?.requiresNonce == true, endpoint == .deviceAuthorization || endpoint == .token,
            case .respond(var response) = reply.response, response.header("DPoP-Nonce") == nil
        {
            response.headers.append(HTTPHeader("DPoP-Nonce", nonce(of: .authorizationServer)))
            reply.response = .respond(response)
        }
        reply.delay += configuration.responseDelay
        if reply.pollNumber != nil, reply.delay > .zero, let code = reply.deviceCode {
            deviceCodes[code]?.inFlight += 1
        }
        record(incoming, endpoint: endpoint, reply: reply)
        return reply
    }

    /// Marks a delayed poll as delivered.
    mutating func finishPoll(deviceCode: String) {
        deviceCodes[deviceCode]?.inFlight -= 1
    }

    func writer(for incoming: Incoming) -> WireWriter {
        WireWriter(dialect: configuration.dialect, acceptsJSON: incoming.acceptsJSON)
    }

    /// The checks every OAuth POST endpoint makes before reading parameters: the method, the media type, and no
    /// parameter sent twice (RFC 6749 §3.2: "MUST NOT be included more than once"; `resource` may repeat).
    func checkOAuthPost(_ incoming: Incoming, _ writer: WireWriter) throws(ReplyError) {
        guard incoming.request.method == .post else {
            let allow = [HTTPHeader("Allow", "POST")]
            throw ReplyError(WireWriter.plain(status: 405, "Method Not Allowed", headers: allow))
        }
        guard incoming.isForm else {
            let reason = "The body must be application/x-www-form-urlencoded."
            throw ReplyError(writer.oauthError(.invalidRequest, reason))
        }
        var seen = Set<String>()
        for (name, _) in incoming.form where name != "resource" {
            if !seen.insert(name).inserted {
                throw ReplyError(writer.oauthError(.invalidRequest, "The parameter \(name) is repeated."))
            }
        }
    }

    /// What a scripted fault does to an answer.
    enum FaultEffect {
        case none
        case replace(Reply)
        case delay(Duration)
        case slowDown
    }

    func effect(of fault: Server.Fault?, _ incoming: Incoming, _ writer: WireWriter) -> FaultEffect {
        guard let fault else { return .none }
        switch fault {
        case .delay(let delay): return .delay(delay)
        case .slowDown: return .slowDown
        case .echoingCredentials(let code, let status):
            let echoed = Self.credentials(of: incoming)
            let extra: JSONObject = [
                "error_uri": .string("https://errors.example/?echo=" + echoed.joined(separator: ",")),
                "echo": .array(echoed.map(JSONValue.string)),
            ]
            let description = "Refused what you sent: " + echoed.joined(separator: " ")
            return .replace(writer.oauthError(code, description, status: status, extra: extra))
        default: return writer.reply(for: fault).map(FaultEffect.replace) ?? .none
        }
    }

    /// Every credential `incoming` carries, for ``MockAuthorizationServer/Fault/echoingCredentials(_:status:)``:
    /// the values of secret form fields, the `Authorization` header's credential, and HTTP Basic's secret decoded.
    static func credentials(of incoming: Incoming) -> [String] {
        var found = incoming.form.filter { Redaction.secretFields.contains($0.0) }.map(\.1)
        if let authorization = incoming.request.header("Authorization"),
            let credential = authorization.split(separator: " ", maxSplits: 1).last.map(String.init)
        {
            found.append(credential)
            if let decoded = Data(base64Encoded: credential).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":")
            {
                found.append(FormEncoding.unescape(decoded[decoded.index(after: colon)...]))
            }
        }
        return found.filter { !$0.isEmpty }
    }

    /// The delay a fault of a counted request (device authorization, refresh) adds; a fault that replaces the
    /// answer is thrown.
    func delay(
        for fault: Server.Fault?, _ incoming: Incoming, _ writer: WireWriter
    ) throws(ReplyError) -> Duration {
        switch effect(of: fault, incoming, writer) {
        case .replace(let reply): throw ReplyError(reply)
        case .delay(let delay): return delay
        case .slowDown: throw ReplyError(writer.oauthError(.slowDown))
        case .none: return .zero
        }
    }

    // MARK: - Client authentication (RFC 6749 §2.3.1)

    /// The authenticated client's ID, or the `invalid_client` answer (HTTP 401).
    func authenticateClient(_ incoming: Incoming, _ writer: WireWriter) throws(ReplyError) -> String {
        let formID = incoming.value("client_id")
        let formSecret = incoming.value("client_secret")
        if let header = incoming.request.header("Authorization"), header.lowercased().hasPrefix("basic ") {
            let challenge = [HTTPHeader("WWW-Authenticate", #"Basic realm="mock""#)]
            guard let (id, secret) = Self.basicCredentials(header),
                let client = configuration.clients.first(where: { $0.id == id }),
                client.authentication == .clientSecretBasic(secret: secret),
                formSecret == nil, formID == nil || formID == id
            else {
                throw ReplyError(
                    writer.oauthError(
                        .invalidClient, "Client authentication failed.", status: 401, headers: challenge
                    ))
            }
            return id
        }
        guard let id = formID, let client = configuration.clients.first(where: { $0.id == id }) else {
            throw ReplyError(writer.oauthError(.invalidClient, "Unknown client.", status: 401))
        }
        switch client.authentication {
        case .none where formSecret == nil:
            return id
        case .clientSecretPost(let secret) where formSecret == secret:
            return id
        default:
            throw ReplyError(writer.oauthError(.invalidClient, "Client authentication failed.", status: 401))
        }
    }

    /// The client ID and secret of an HTTP Basic header, each form-decoded (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String) -> (String, String)? {
        let encoded = header.dropFirst("basic ".count).filter { $0 != " " }
        guard let data = Data(base64Encoded: String(encoded)),
            let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (FormEncoding.unescape(text[..<colon]), FormEncoding.unescape(text[text.index(after: colon)...]))
    }

    // MARK: - Device authorization (RFC 8628 §3.1, §3.2)

    mutating func deviceAuthorization(_ incoming: Incoming) throws(ReplyError) -> Reply {
        let writer = writer(for: incoming)
        try checkOAuthPost(incoming, writer)
        deviceAuthorizationRequestCount += 1
        let delay = try delay(
            for: configuration.deviceAuthorizationFaults[deviceAuthorizationRequestCount], incoming, writer)
        let clientID = try authenticateClient(incoming, writer)
        let dpopKey = try proofKey(incoming, writer, required: requiresDPoP(client: clientID), boundTo: nil)
        var scopes = incoming.value("scope")?.split(separator: " ").map(String.init) ?? []
        try checkScopes(scopes, writer)
        // The list of the code before, when the same: codes share one array instead of keeping a copy each (clients
        // mostly ask for the same scopes; device-login-bench: 80 bytes per waiting flow).
        if scopes == lastScopes { scopes = lastScopes } else { lastScopes = scopes }
        let resources = incoming.values("resource")
        try checkResources(resources, writer)

        let deviceCode = generator.token()
        var userCode = generator.userCode()
        while userCodes[Self.normalise(userCode)] != nil { userCode = generator.userCode() }
        deviceCodes[deviceCode] = DeviceCode(
            userCode: userCode, clientID: clientID, scopes: scopes, resources: resources,
            issuedAt: incoming.time, expiresAt: incoming.time + .seconds(configuration.deviceCodeLifetime),
            interval: configuration.enforcedInterval, script: configuration.defaultScript, dpopKey: dpopKey
        )
        issueOrder.append(deviceCode)
        userCodes[Self.normalise(userCode)] = deviceCode

        var reply = writer.success(deviceAuthorizationObject(deviceCode: deviceCode, userCode: userCode))
        reply.deviceCode = deviceCode
        reply.delay = delay
        return reply
    }

    /// The device authorization response in the server's dialect.
    func deviceAuthorizationObject(deviceCode: String, userCode: String) -> JSONObject {
        let verification = configuration.verificationURIOverride ?? layout.url(configuration.paths.verification)
        let completeBase = configuration.verificationURICompleteOverride ?? verification
        let lifetime = configuration.deviceCodeLifetime
        var response = DeviceAuthorizationResponse(
            deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
            verificationURIComplete: completeBase + "?user_code=" + FormEncoding.escape(userCode),
            expiresIn: lifetime, interval: configuration.interval
        )
        if configuration.dialect != .standard { response.verificationURIComplete = nil }
        var object = response.jsonObject
        switch configuration.dialect {
        case .standard, .github:
            break
        case .google:
            // Google: `verification_url`.
            object["verification_url"] = object.removeValue(forKey: "verification_uri")
        case .microsoft:
            // Microsoft's v1 endpoint: numbers as strings, and a sentence for the user.
            object["expires_in"] = .string(String(lifetime))
            if let interval = configuration.interval { object["interval"] = .string(String(interval)) }
            object["message"] = .string(
                "To sign in, use a web browser to open the page \(verification) and enter the code \(userCode) "
                    + "to authenticate."
            )
        }
        return object
    }

    func checkScopes(_ scopes: [String], _ writer: WireWriter) throws(ReplyError) {
        guard let supported = configuration.supportedScopes else { return }
        if let unknown = scopes.first(where: { !supported.contains($0) }) {
            throw ReplyError(writer.oauthError(.invalidScope, "The scope \(unknown) is unknown."))
        }
    }

    /// RFC 8707 §2: each resource is an absolute URI without a fragment.
    func checkResources(_ resources: [String], _ writer: WireWriter) throws(ReplyError) {
        for resource in resources {
            guard let url = URL(string: resource), url.scheme != nil, url.fragment == nil else {
                let reason = "The resource \(resource) is not an absolute URI."
                throw ReplyError(writer.oauthError(.invalidTarget, reason))
            }
        }
    }

    /// A user code as typed: upper case, dashes and spaces removed (RFC 8628 §6.1).
    static func normalise(_ userCode: String) -> String {
        String(userCode.uppercased().filter { $0 != "-" && $0 != " " })
    }

    // MARK: - Records

    mutating func record(_ incoming: Incoming, endpoint: Server.Endpoint, reply: Reply) {
        guard configuration.recording != .off else { return }
        guard records.count < configuration.maximumRecords else {
            droppedRecordCount += 1
            return
        }
        let full = configuration.recording == .full
        var grantType = incoming.value("grant_type")
        if grantType == DeviceAccessTokenRequest.grantType { grantType = DeviceAccessTokenRequest.grantType }
        records.append(
            Server.RecordedRequest(
                time: incoming.time,
                method: incoming.request.method,
                path: incoming.path,
                endpoint: endpoint,
                grantType: endpoint == .token ? grantType : nil,
                deviceCode: reply.deviceCode,
                pollNumber: reply.pollNumber,
                headers: full ? incoming.request.headers : [],
                formFields: full ? incoming.form.map { Server.RecordedRequest.Field(name: $0.0, value: $0.1) } : [],
                answer: reply.answer,
                delay: reply.delay > .zero ? reply.delay : nil,
                dpop: proofCheck
            ))
    }
}

/// A finished answer carried through `Result` by the checks that may refuse a request.
struct ReplyError: Error {
    var reply: Reply
    init(_ reply: Reply) { self.reply = reply }
}
