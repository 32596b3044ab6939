import Foundation
import Testing

@testable import DeviceLogin

@Suite struct UserInfoTests {
    @Test func readsStandardClaimsAndKeepsOthers() throws {
        let object = try JSONValue.decodeObject(
            from: Data(
                """
                {"sub":"u","name":"N","given_name":"G","family_name":"F","preferred_username":"p","email":"e@x",
                 "email_verified":true,"phone_number_verified":"false","locale":"de","updated_at":1700000000,
                 "address":{"country":"DE"}}
                """.utf8))
        let info = try UserInfo(jsonObject: object)
        #expect(info.subject == "u")
        #expect(info.givenName == "G")
        #expect(info.familyName == "F")
        #expect(info.preferredUsername == "p")
        #expect(info.emailVerified == true)
        #expect(info.phoneNumberVerified == false)
        #expect(info.updatedAt == Fixtures.start)
        #expect(info.additionalClaims == ["address": .object(["country": .string("DE")])])
        #expect(try UserInfo(jsonObject: info.jsonObject) == info)
    }

    @Test func subIsRequired() {
        #expect(throws: DeviceLoginError(.invalidResponse, "")) { try UserInfo(jsonObject: ["name": .string("x")]) }
    }

    @Test func wireFormByteForByte() throws {
        let object = try JSONValue.decodeObject(
            from: Data(
                """
                {"sub":"u","email_verified":"true","updated_at":"1700000000.5","name":"","picture":"https://p/x.png",
                 "groups":["a"]}
                """.utf8))
        let info = try UserInfo(jsonObject: object)
        #expect(info.emailVerified == true)
        #expect(info.name == nil)
        #expect(info.updatedAt == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(
            try info.wireText == #"{"email_verified":true,"groups":["a"],"picture":"https:\/\/p\/x.png","#
                + #""sub":"u","updated_at":1700000000.5}"#)
    }

    @Test func builtAndParsedValuesAreEqual() throws {
        let built = UserInfo(subject: "u", name: "N", email: "e@x", additionalClaims: ["groups": .array([])])
        let parsed = try UserInfo(jsonObject: [
            "sub": .string("u"), "name": .string("N"), "email": .string("e@x"), "groups": .array([]),
        ])
        #expect(built == parsed)
        #expect(built.hashValue == parsed.hashValue)
        #expect(try JSONDecoder().decode(UserInfo.self, from: JSONEncoder().encode(built)) == built)
    }

    @Test func missingSubNamesTheClaim() {
        #expect {
            try UserInfo(jsonObject: ["sub": .string("")])
        } throws: { error in
            (error as? DeviceLoginError)?.message == "the userinfo response has no sub claim"
        }
    }
}
