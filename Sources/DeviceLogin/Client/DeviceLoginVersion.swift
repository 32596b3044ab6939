/// The library's version.
public enum DeviceLoginVersion {
    /// The version as a string, e.g. `0.1.0`.
    public static let string = "0.1.0"
}
