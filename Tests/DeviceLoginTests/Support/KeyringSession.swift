import Foundation

@testable import DeviceLogin

/// The test process's own keyring: made once, so that no test reads or writes the user's keys. Each thread of the
/// process links it into its own thread keyring on use (`KeyringTokenStore.Keyring.serial`).
enum KeyringSession {
    private static let serial: Int32? = try? KernelKeyring.makeTestKeyring(
        "device-login-tests-" + UUID().uuidString)

    /// The keyring, nil where the kernel keyring cannot be used.
    static var keyring: KeyringTokenStore.Keyring? { serial.map { .serial($0) } }
}
