import Foundation
import Testing

@testable import DeviceLogin

/// A message with one row of each sort, to test the mechanism apart from any RFC.
private struct Sample: WireMapped, Hashable {
    var id: String
    var count: Int
    var label: String
    var note: String?
    var rest: JSONObject

    static let wire = WireMapping<Self>(
        start: Self(id: "", count: 0, label: "", note: nil, rest: [:]), unknown: \.rest,
        missing: { DeviceLoginError(.invalidResponse, "the sample has no \($0)") },
        fields: [
            .required("id", \.id, .string, aliases: ["old_id"]),
            .required("count", \.count, .integer.requiring { $0 >= 0 }),
            .defaulted("label", \.label, .string, absent: "none"),
            .optional("note", \.note, .string, aliases: ["remark"]),
        ]
    )

    init(id: String, count: Int, label: String, note: String?, rest: JSONObject) {
        (self.id, self.count, self.label, self.note, self.rest) = (id, count, label, note, rest)
    }
}

@Suite("WireMapping: one table per wire message does the reading, writing and keeping")
struct WireMappingTests {
    private let parse = Sample.decoding

    @Test("every row read; unknown fields kept; the wire form in standard shape")
    func readsAndWrites() throws {
        let sample = try parse(#"{"id":"a","count":"3","note":"n","x":{"y":[1,null]}}"#)
        let rest: JSONObject = ["x": .object(["y": .array([.number(1), .null])])]
        #expect(sample == Sample(id: "a", count: 3, label: "none", note: "n", rest: rest))
        #expect(try sample.wireText == #"{"count":3,"id":"a","label":"none","note":"n","x":{"y":[1,null]}}"#)
    }

    @Test(
        "the first required field missing, in table order, is the one named",
        arguments: [
            (#"{"count":1}"#, "id"), (#"{}"#, "id"), (#"{"id":"a"}"#, "count"), (#"{"id":"a","count":-1}"#, "count"),
            (#"{"id":"","count":1}"#, "id"), (#"{"id":"a","count":"many"}"#, "count"),
        ])
    func missingRequiredField(json: String, field: String) {
        #expect {
            try parse(json)
        } throws: { error in
            (error as? DeviceLoginError)?.message == "the sample has no \(field)"
        }
    }

    @Test("an alias is read when the wire name is absent or unreadable, and written under the wire name")
    func aliases() throws {
        #expect(
            try parse(#"{"old_id":"b","count":0,"remark":"r"}"#).wireText
                == #"{"count":0,"id":"b","label":"none","note":"r"}"#)
        #expect(try parse(#"{"id":"a","old_id":"b","count":0}"#).id == "a")
        #expect(try parse(#"{"id":"","old_id":"b","count":0}"#).id == "b")
        #expect(try parse(#"{"id":"a","old_id":"b","count":0}"#).rest.isEmpty)
    }

    @Test("an unreadable optional reads as absent and is not kept as unknown")
    func unreadableOptional() throws {
        let sample = try parse(#"{"id":"a","count":0,"note":"","label":["x"]}"#)
        #expect(sample.note == nil)
        #expect(sample.label == "none")
        #expect(sample.rest.isEmpty)
    }

    @Test("an unknown field under a known name never shadows the typed property")
    func knownNamesInUnknownFields() throws {
        let rest: JSONObject = ["note": .string("x"), "remark": .number(1), "z": .number(2)]
        let sample = Sample(id: "a", count: 1, label: "l", note: nil, rest: rest)
        #expect(try sample.wireText == #"{"count":1,"id":"a","label":"l","z":2}"#)
    }

    @Test("Codable and init(jsonObject:) agree, and the round trip is exact")
    func codableRoundTrip() throws {
        let sample = try parse(#"{"id":"a","count":2,"label":"l","extra":true}"#)
        let again = try JSONDecoder().decode(Sample.self, from: JSONEncoder().encode(sample))
        #expect(again == sample)
        #expect(try Sample(jsonObject: sample.jsonObject) == sample)
        #expect(Set([sample, again]).count == 1)
    }
}
