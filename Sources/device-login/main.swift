import DeviceLoginCLI

// The binary users install: the CLI's commands, with `demo` handing over to device-login-demo (DemoLauncher), so
// that this binary links no testing kit.
CLIProcess.main(CLI.commands)
