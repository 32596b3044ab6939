import DeviceLogin

/// `device-login demo` (filled in with the testing kit's loopback server).
enum DemoCommand {
    static let spec = CommandSpec(name: "demo", summary: "demo", options: [], run: { _, _ in .failure })
}
