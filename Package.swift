// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DeviceLogin",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DeviceLogin", targets: ["DeviceLogin"]),
        .library(name: "DeviceLoginTerminal", targets: ["DeviceLoginTerminal"]),
        .library(name: "DeviceLoginTesting", targets: ["DeviceLoginTesting"]),
        .executable(name: "device-login", targets: ["device-login"]),
        .executable(name: "device-login-demo", targets: ["device-login-demo"]),
        .executable(name: "device-login-bench", targets: ["DeviceLoginBenchmark"]),
        // The C library's objects; Scripts/build-lib.sh links them, with the Swift runtime, into libdevicelogin.so.1
        // and libdevicelogin.a (docs/embedding.md).
        .library(name: "devicelogin", type: .static, targets: ["DeviceLoginC"]),
    ],
    targets: [
        // What the three loaders below share: dlopen of a library, dlsym of every function it lists into a table of
        // function pointers, published once per process.
        .target(name: "CLibraryLoader"),
        // libcurl, loaded with dlopen on the first request (so `token` and the credential helpers never load it):
        // a table of function pointers and typed wrappers, compiled against libcurl's headers (Debian:
        // libcurl4-openssl-dev or libcurl4-gnutls-dev, on the default include path; macOS: the SDK's) and linked to
        // nothing. At run time it needs libcurl.so.4 (Debian: libcurl4); without it a request fails with a
        // TransportError.
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // OpenSSL 3's libcrypto, loaded the same way on first use (so `token` and the credential helpers never load
        // it): typed wrappers of the EVP calls that verify ID-token signatures and make DPoP proofs, compiled against
        // OpenSSL 3's headers (Debian: libssl-dev) and linked to nothing. At run time it needs libcrypto.so.3
        // (Debian: libssl3); without it a verification fails with a CryptoError that says so.
        .target(name: "CCrypto", dependencies: ["CLibraryLoader"]),
        // libqrencode, loaded the same way on the first QR code, so the binary starts on a box without it (only the
        // QR code is missing there). Compiled against libqrencode's header where it is installed (Debian:
        // libqrencode-dev). At run time it needs libqrencode.so.4 (Debian: libqrencode4).
        .target(name: "CQRencode", dependencies: ["CLibraryLoader"]),
        // libsecret (the freedesktop Secret Service over D-Bus), loaded the same way by the first use of the
        // `secret-service` store, and declared after its stable ABI (no headers needed). At run time it needs
        // libsecret-1.so.0 (Debian: libsecret-1-0) and a Secret Service on the session bus (gnome-keyring).
        .target(name: "CSecretService", dependencies: ["CLibraryLoader"]),

        // Typed wrappers of prctl(2), which is variadic (Swift cannot call it), for ProcessHardening.
        .target(name: "CProcessHardening"),
        // Typed wrappers of add_key(2) and keyctl(2), reached only through syscall(2) (variadic), for KernelKeyring.
        .target(name: "CKeyring"),
        // For `device-login exec`: the closefrom spawn action (a GNU extension), a handler keeping signal senders.
        .target(name: "CExec"),

        // Core: protocol values, discovery, the RFC 8628 engine, token state, transports.
        .target(
            name: "DeviceLogin",
            dependencies: [
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
                .target(name: "CCrypto", condition: .when(platforms: [.linux])), "CProcessHardening", "CKeyring",
                .target(name: "CSecretService", condition: .when(platforms: [.linux])),
            ]
        ),
        // Terminal rendering: sanitiser, QR matrix, prompt renderer.
        .target(name: "DeviceLoginTerminal", dependencies: ["DeviceLogin", "CQRencode"]),
        // Testing kit: mock authorization server, manual clock, in-memory store.
        .target(name: "DeviceLoginTesting", dependencies: ["DeviceLogin"]),
        // The CLI's commands, as a library the executables share: thin commands over the libraries. It links no
        // testing kit: `demo` reaches its server through the DemoServer protocol.
        .target(name: "DeviceLoginCLI", dependencies: ["DeviceLogin", "DeviceLoginTerminal", "CExec"]),
        // The CLI users install: `main.swift` over DeviceLoginCLI; its `demo` hands over to device-login-demo.
        .executableTarget(name: "device-login", dependencies: ["DeviceLoginCLI"]),
        // The demo server's program: the same CLI with a `demo` that runs the testing kit's server. Of the CLI's
        // two programs, the only one that links the kit.
        .executableTarget(name: "device-login-demo", dependencies: ["DeviceLoginCLI", "DeviceLoginTesting"]),
        // The C ABI of libdevicelogin (include/device_login.h): `@c` functions over the core, nothing else.
        .target(name: "DeviceLoginC", dependencies: ["DeviceLogin"]),
        // For device-login-bench: the heap's bytes in use (mallinfo2, which Swift's Glibc module does not expose).
        .target(name: "CHeapUsage", path: "Benchmarks/CHeapUsage"),
        .executableTarget(
            name: "DeviceLoginBenchmark",
            dependencies: ["DeviceLogin", "DeviceLoginTesting", "CHeapUsage"],
            path: "Benchmarks/DeviceLoginBenchmark"
        ),

        // Helpers the test targets share (snapshots, the products directory, tags); never in a product.
        .target(name: "DeviceLoginTestSupport", path: "Tests/DeviceLoginTestSupport"),
        .testTarget(
            name: "DeviceLoginTests",
            dependencies: ["DeviceLogin", "DeviceLoginTesting", "DeviceLoginTestSupport", "StoreCrashHelper"]
        ),
        // A process for FileTokenStore's crash-safety and cross-process lock tests (killed with SIGKILL), and for
        // ProcessHardening and exec's signal catcher, which change the process they run in.
        .executableTarget(
            name: "StoreCrashHelper", dependencies: ["DeviceLogin", "CProcessHardening", "CExec"],
            path: "Tests/StoreCrashHelper"
        ),
        .testTarget(
            name: "DeviceLoginTerminalTests",
            dependencies: ["DeviceLoginTerminal", "DeviceLogin", "DeviceLoginTesting", "DeviceLoginTestSupport"],
            exclude: ["Kiosk/Snapshots", "Prompt/Snapshots"]
        ),
        .testTarget(name: "DeviceLoginCTests", dependencies: ["DeviceLoginC", "DeviceLogin"]),
        .testTarget(name: "DeviceLoginTestingTests", dependencies: ["DeviceLoginTesting", "DeviceLogin"]),
        .testTarget(
            name: "DeviceLoginCLITests",
            dependencies: [
                "DeviceLoginCLI", "device-login", "device-login-demo", "DeviceLogin", "DeviceLoginTesting",
                "DeviceLoginTestSupport",
            ],
            exclude: ["Documents/Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
