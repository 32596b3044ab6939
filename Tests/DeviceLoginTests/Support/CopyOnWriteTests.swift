import Testing

@testable import DeviceLogin

@Suite("CopyOnWrite: copies share the fields until one of them changes a field")
struct CopyOnWriteTests {
    private struct Fields: Sendable, Hashable {
        var name: String
        var count: Int
    }

    @Test("a changed copy does not change the original, nor the original its copy")
    func copiesAreValues() {
        let original = CopyOnWrite(Fields(name: "first", count: 1))
        var copy = original
        copy.update { $0.name = "second" }
        #expect(original.fields.name == "first")
        #expect(copy.fields.name == "second")
        #expect(copy.fields.count == 1)
        var other = copy
        other.update { $0.count = 2 }
        #expect(copy.fields.count == 1)
        #expect(other.fields == Fields(name: "second", count: 2))
    }

    @Test("equal and hashed as the fields are, whether the values share them or not")
    func equalityFollowsTheFields() {
        let first = CopyOnWrite(Fields(name: "same", count: 3))
        let shared = first
        let separate = CopyOnWrite(Fields(name: "same", count: 3))
        var changed = first
        changed.update { $0.count = 4 }
        #expect(first == shared)
        #expect(first == separate)
        #expect(first.hashValue == separate.hashValue)
        #expect(first != changed)
        changed.update { $0.count = 3 }
        #expect(first == changed)
    }

    @Test("a value that owns its fields alone changes them in place, through any number of changes")
    func manyChanges() {
        var value = CopyOnWrite(Fields(name: "", count: 0))
        for number in 1...1000 { value.update { $0.count = number } }
        #expect(value.fields.count == 1000)
        // Shared, the first change copies; the copy it made is then changed in place.
        let shared = value
        value.update { $0.name = "changed" }
        #expect(shared.fields == Fields(name: "", count: 1000))
        #expect(value.fields == Fields(name: "changed", count: 1000))
    }
}
