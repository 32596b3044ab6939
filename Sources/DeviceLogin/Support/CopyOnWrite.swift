/// A value's fields kept in one object that its copies share until one of them changes a field (copy on write): the
/// value holds one reference instead of the fields themselves.
///
/// For values that many others keep a copy of: every device flow keeps its endpoints and its client configuration,
/// and 10,000 concurrent flows made from one discovery and one configuration kept 10,000 copies of their 270 bytes
/// (device-login-bench) where they now keep two references each.
///
/// ```swift
/// public struct Settings {
///     private struct Fields: Sendable, Hashable { var name: String }
///     private var stored: CopyOnWrite<Fields>
///     public var name: String {
///         get { stored.fields.name }
///         set { stored.update { $0.name = newValue } }
///     }
/// }
/// ```
package struct CopyOnWrite<Fields: Sendable>: @unchecked Sendable {
    // The box is changed only when this value is its one owner (`isKnownUniquelyReferenced`), so no two values ever
    // see it change, and its fields are `Sendable`: that is what makes the `@unchecked Sendable` true.
    private final class Box {
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var box: Box

    /// Keeps `fields`, unshared.
    package init(_ fields: Fields) {
        box = Box(fields)
    }

    /// Every field, to read.
    package var fields: Fields { box.fields }

    /// Changes the fields, copying them first when another value shares them.
    ///
    /// A closure, not a subscript over key paths: the runtime builds a key path object on its first use and every
    /// access through one calls into it, nine of them in each sign-in (issue 19).
    package mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }
}

extension CopyOnWrite: Equatable where Fields: Equatable {
    /// Equal when the fields are (at once when the two share them).
    package static func == (left: CopyOnWrite, right: CopyOnWrite) -> Bool {
        left.box === right.box || left.box.fields == right.box.fields
    }
}

extension CopyOnWrite: Hashable where Fields: Hashable {
    /// Hashes the fields.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }
}
