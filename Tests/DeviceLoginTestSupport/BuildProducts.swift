import Foundation

/// Where the build put its products: the test bundle and, beside it, the package's executables.
///
/// Tests that run a built executable (the `device-login` binary, the store's crash helper) find it here:
///
/// ```swift
/// process.executableURL = BuildProducts.executable("device-login")
/// ```
public enum BuildProducts {
    /// The directory holding the built products: the test bundle's directory.
    public static var directory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #else
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
        #endif
    }

    /// The built executable product `name`, beside the test bundle.
    /// - Parameter name: The product's name, e.g. `device-login`.
    /// - Returns: Its file URL (whether or not it has been built).
    public static func executable(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }
}
