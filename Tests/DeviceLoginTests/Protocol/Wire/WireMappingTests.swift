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
        start: Self(id: "", count: 0, label: "", note: nil, rest: [:]), unknown: \.rest, setUnknown: { $0.rest = $1 },
        missing: { DeviceLoginError(.invalidResponse, "the sample has no \($0)") },
        fields: [
            .required("id", \.id, .string, aliases: ["old_id"]) { $0.id = $1 },
            .required("count", \.count, .integer.requiring { $0 >= 0 }) { $0.count = $1 },
            .defaulted("label", \.label, .string, absent: "none") { $0.label = $1 },
            .optional("note", \.note, .string, aliases: ["remark"]) { $0.note = $1 },
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

/// Every row of every table names one property twice, a getter and a setter: these tests catch the two naming different
/// properties, or two rows sharing one.
@Suite("WireMapping rows: each row's getter and setter name the same property, and no two rows share one")
struct WireMappingRowTests {
    /// Decodes `json`, which must carry every row of `mapping` once with values no two rows share (and one unknown
    /// field), encodes the message, and expects the same object back: a row whose setter fills another property
    /// than its getter reads sends its value out under another row's name (or not at all), and the objects differ.
    private func expectRoundTrip<Message>(
        _ mapping: WireMapping<Message>, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let object = try JSONValue.decodeObject(from: Data(json.utf8))
        let names = mapping.fields.map { $0.names[0] }
        let missing = names.filter { object[$0] == nil }
        #expect(missing.isEmpty, "the object lacks rows \(missing)", sourceLocation: sourceLocation)
        let values = names.compactMap { object[$0] }
        #expect(Set(values).count == values.count, "two rows share a value", sourceLocation: sourceLocation)
        #expect(
            object.keys.contains { !mapping.knownNames.contains($0) }, "no unknown field",
            sourceLocation: sourceLocation)
        #expect(mapping.encode(try mapping.decode(object)) == object, sourceLocation: sourceLocation)
    }

    @Test("the test's own sample")
    func sample() throws {
        try expectRoundTrip(Sample.wire, #"{"id":"a","count":2,"label":"l","note":"n","z":true}"#)
    }

    @Test("TokenResponse")
    func tokenResponse() throws {
        try expectRoundTrip(
            TokenResponse.wire,
            #"{"access_token":"at","token_type":"DPoP","expires_in":3600,"refresh_token":"rt","scope":"s","#
                + #""id_token":"it","x":1}"#)
    }

    @Test("DeviceAuthorizationResponse")
    func deviceAuthorizationResponse() throws {
        try expectRoundTrip(
            DeviceAuthorizationResponse.wire,
            #"{"device_code":"dc","user_code":"UC","verification_uri":"https://v","#
                + #""verification_uri_complete":"https://v?c","expires_in":900,"interval":7,"x":1}"#)
    }

    @Test("AuthorizationServerMetadata")
    func authorizationServerMetadata() throws {
        try expectRoundTrip(
            AuthorizationServerMetadata.wire,
            #"{"issuer":"https://i","device_authorization_endpoint":"https://i/d","token_endpoint":"https://i/t","#
                + #""revocation_endpoint":"https://i/r","userinfo_endpoint":"https://i/u","jwks_uri":"https://i/k","#
                + #""scopes_supported":["openid"],"grant_types_supported":["g"],"#
                + #""token_endpoint_auth_methods_supported":["none"],"authorization_endpoint":"https://i/a","#
                + #""code_challenge_methods_supported":["S256"],"response_modes_supported":["query"],"#
                + #""authorization_response_iss_parameter_supported":true,"x":1}"#)
    }

    @Test("IDTokenClaims")
    func idTokenClaims() throws {
        try expectRoundTrip(
            IDTokenClaims.wire,
            #"{"iss":"https://i","sub":"s","aud":"a","exp":1800000000,"iat":1700000000,"auth_time":1700000001,"#
                + #""nonce":"n","azp":"p","name":"N","given_name":"G","family_name":"F","preferred_username":"U","#
                + #""email":"e@x","email_verified":true,"x":1}"#)
    }

    @Test("UserInfo")
    func userInfo() throws {
        try expectRoundTrip(
            UserInfo.wire,
            #"{"sub":"s","name":"N","given_name":"G","family_name":"F","nickname":"K","preferred_username":"U","#
                + #""picture":"https://p","email":"e@x","email_verified":true,"phone_number":"+1","#
                + #""phone_number_verified":false,"locale":"de","updated_at":1700000000,"x":1}"#)
    }
}
