import Testing

extension Tag {
    /// A long stress test (hundreds of processes or iterations). CI runs it; `Scripts/test.sh --quick` skips it.
    @Tag public static var stress: Self
}
