@testable import DeviceLogin
import Foundation
import Testing

@Suite struct UserInfoTests {
    @Test func readsStandardClaimsAndKeepsOthers() throws {
        let object = try JSONValue.decodeObject(from: Data("""
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
}
