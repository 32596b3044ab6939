import DeviceLoginCLI

// The demo server's program: the same CLI, with the `demo` that runs the testing kit's authorization server.
// `device-login demo ...` replaces itself with `device-login-demo demo ...`; this is the only program of the package
// that links the testing kit.
CLIProcess.main(CLI.commandTable(demo: DemoCommand.serving { try TestingKitDemoServer($0) }))
