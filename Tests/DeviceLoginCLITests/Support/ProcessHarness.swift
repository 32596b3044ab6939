import DeviceLogin
import DeviceLoginTestSupport
import DeviceLoginTesting
import Foundation
import Testing

/// Runs the built `device-login` with standard streams that `BinaryHarness` does not make: a full device, a closed
/// descriptor, a pipe nobody reads, bytes on standard input, or a pseudo-terminal.
enum ProcessHarness {
    /// Where the process's standard output goes.
    enum Output {
        /// A pipe the harness reads.
        case pipe
        /// `/dev/full`: every write fails with ENOSPC.
        case full
        /// No descriptor 1 at all (`>&-`).
        case closed
        /// A pipe whose reading end is closed before the process starts: writes fail with EPIPE.
        case brokenPipe
    }

    /// Runs `arguments` to completion with standard output `output` and `input` on standard input.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], output: Output = .pipe, input: Data? = nil,
        executable: URL = BinaryHarness.binary
    ) async throws -> BinaryHarness.Run {
        let process = Process()
        if case .closed = output {
            // The shell closes descriptor 1 and replaces itself with the binary, which starts without one.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" >&-", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ChildProcess.environment(environment, droppingPrefix: "DEVICE_LOGIN_")
        let out = Pipe()
        let err = Pipe()
        process.standardError = err
        switch output {
        case .pipe:
            process.standardOutput = out
        case .full:
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        case .closed:
            process.standardOutput = FileHandle.nullDevice
        case .brokenPipe:
            let unread = Pipe()
            try unread.fileHandleForReading.close()
            process.standardOutput = unread
        }
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if case .pipe = output {
        } else {
            // Nothing writes to `out`: it reads as empty.
            try out.fileHandleForWriting.close()
        }
        if let input {
            try inputPipe.fileHandleForWriting.write(contentsOf: input)
            try inputPipe.fileHandleForWriting.close()
        }
        let result = await ChildProcess.finish(process, stdout: out, stderr: err)
        return BinaryHarness.Run(
            status: result.signalled ? 128 + result.status : result.status,
            stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: result.stderr, as: UTF8.self)
        )
    }

    /// Saves a profile in `home` whose access token is valid for an hour, so that `token` prints it with no
    /// request; returns the token.
    static func saveSignedInProfile(home: URL, name: String = "default") async throws -> String {
        let endpoints = ServerEndpoints(
            deviceAuthorization: URL(string: "https://auth.example.test/device"),
            token: try #require(URL(string: "https://auth.example.test/token"))
        )
        let token = "access-" + UUID().uuidString
        let tokens = TokenSet(
            accessToken: token, expiresAt: Date().addingTimeInterval(3600), refreshToken: "refresh-1",
            issuedAt: Date()
        )
        let record = ProfileRecord(
            profile: try Profile(name: name, endpoints: endpoints, clientID: "app"), tokens: tokens
        )
        try await FileTokenStore(directory: home.path).save(record)
        return token
    }

    /// Signs in through the library against `model` (served on loopback, in `clock`'s virtual time) and saves the
    /// profile in `home`, as `login` does: a profile the mock can refresh. Returns the token response.
    static func signIn(
        model: MockAuthorizationServer, clock: ManualClock, home: URL, profile: String = "default",
        client: ClientConfiguration = ClientConfiguration(
            clientID: MockAuthorizationServer.Configuration.defaultClientID)
    ) async throws -> TokenResponse {
        // 120 s, not the default 30: the loopback server answers from the cooperative pool, which a sanitizer run on a
        // loaded machine kept busy for over 30 s once. A failsafe; a healthy sign-in takes milliseconds.
        let transport = CurlTransport(options: TransportOptions(requestTimeout: 120))
        let endpoints = try model.endpoints()
        let flow = DeviceFlow(endpoints: endpoints, client: client, transport: transport, clock: clock)
        let authorization = try await flow.requestAuthorization()
        #expect(model.approve(deviceCode: authorization.response.deviceCode))
        let response = try await clock.withAutoAdvance { try await flow.pollForToken(authorization) }
        let state = TokenState(
            profile: try Profile(name: profile, issuer: model.issuer, endpoints: endpoints, client: client),
            client: client, store: FileTokenStore(directory: home.path), transport: transport
        )
        try await state.store(response)
        return response
    }
}

/// A value handed to another thread as it is (a `Process` and its pipes, used by one thread at a time).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
