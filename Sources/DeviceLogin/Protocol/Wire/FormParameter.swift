/// One `name=value` pair of a form body (`application/x-www-form-urlencoded`), such as Auth0's `audience`.
///
/// A value type rather than a `(String, String)` tuple so that the configurations and requests holding a list of
/// them get `==` and `hash(into:)` synthesised, over every pair and in order.
public struct FormParameter: Sendable, Hashable {
    /// The parameter's name, unescaped.
    public var name: String
    /// The parameter's value, unescaped.
    public var value: String

    /// Creates a pair.
    /// - Parameters:
    ///   - name: The name, unescaped (``FormEncoding`` escapes it on the wire).
    ///   - value: The value, unescaped.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// The pair as ``FormEncoding`` takes it.
    var pair: (String, String) { (name, value) }
}
