import Foundation
import Testing

@testable import DeviceLogin

@Suite("AuthorizationServerMetadata (RFC 8414 §2, OpenID Connect Discovery 1.0 §3)")
struct AuthorizationServerMetadataTests {
    private let parse = AuthorizationServerMetadata.decoding

    @Test("an OpenID provider's document: typed fields, the rest kept, the wire form byte for byte")
    func openIDDocument() throws {
        let metadata = try parse(
            """
            {"issuer":"https://a.example","device_authorization_endpoint":"https://a.example/device",
             "token_endpoint":"https://a.example/token","revocation_endpoint":"https://a.example/revoke",
             "userinfo_endpoint":"https://a.example/me","jwks_uri":"https://a.example/jwks",
             "scopes_supported":["openid","email"],"grant_types_supported":["refresh_token"],
             "token_endpoint_auth_methods_supported":["none","client_secret_basic"],
             "id_token_signing_alg_values_supported":["RS256"],"claims_supported":["sub"]}
            """)
        #expect(
            metadata
                == AuthorizationServerMetadata(
                    issuer: "https://a.example", deviceAuthorizationEndpoint: "https://a.example/device",
                    tokenEndpoint: "https://a.example/token", revocationEndpoint: "https://a.example/revoke",
                    userinfoEndpoint: "https://a.example/me", jwksURI: "https://a.example/jwks",
                    scopesSupported: ["openid", "email"], grantTypesSupported: ["refresh_token"],
                    tokenEndpointAuthMethodsSupported: ["none", "client_secret_basic"],
                    additionalFields: [
                        "id_token_signing_alg_values_supported": .array([.string("RS256")]),
                        "claims_supported": .array([.string("sub")]),
                    ]
                ))
        #expect(metadata.isOpenIDProvider)
        #expect(
            try metadata.wireText == #"{"claims_supported":["sub"],"#
                + #""device_authorization_endpoint":"https:\/\/a.example\/device","#
                + #""grant_types_supported":["refresh_token"],"#
                + #""id_token_signing_alg_values_supported":["RS256"],"issuer":"https:\/\/a.example","#
                + #""jwks_uri":"https:\/\/a.example\/jwks","revocation_endpoint":"https:\/\/a.example\/revoke","#
                + #""scopes_supported":["openid","email"],"#
                + #""token_endpoint":"https:\/\/a.example\/token","#
                + #""token_endpoint_auth_methods_supported":["none","client_secret_basic"],"#
                + #""userinfo_endpoint":"https:\/\/a.example\/me"}"#)
        #expect(
            try JSONDecoder().decode(AuthorizationServerMetadata.self, from: JSONEncoder().encode(metadata))
                == metadata)
    }

    @Test("the code grant's fields: authorization_endpoint, PKCE methods, response modes, RFC 9207's iss flag")
    func codeGrantFields() throws {
        let metadata = try parse(
            """
            {"issuer":"https://a.example","authorization_endpoint":"https://a.example/authorize",
             "code_challenge_methods_supported":["S256"],"response_modes_supported":["query","fragment"],
             "authorization_response_iss_parameter_supported":true}
            """)
        #expect(metadata.authorizationEndpoint == "https://a.example/authorize")
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.responseModesSupported == ["query", "fragment"])
        #expect(metadata.authorizationResponseIssuerSupported == true)
        #expect(metadata.additionalFields.isEmpty)
        let plain = try parse(#"{"issuer":"https://a.example"}"#)
        #expect(plain.authorizationEndpoint == nil)
        #expect(plain.authorizationResponseIssuerSupported == nil)
    }

    @Test("a list sent as one space-separated string is read as its words and written as an array")
    func spaceSeparatedList() throws {
        let metadata = try parse(#"{"issuer":"https://a.example","scopes_supported":"openid profile"}"#)
        #expect(metadata.scopesSupported == ["openid", "profile"])
        #expect(metadata.isOpenIDProvider)
        #expect(try metadata.wireText == #"{"issuer":"https:\/\/a.example","scopes_supported":["openid","profile"]}"#)
    }

    @Test("a plain OAuth server is no OpenID provider; its device endpoint may be absent (django-oauth-toolkit)")
    func plainOAuth() throws {
        let metadata = try parse(#"{"issuer":"https://a.example","token_endpoint":"https://a.example/t"}"#)
        #expect(!metadata.isOpenIDProvider)
        #expect(metadata.deviceAuthorizationEndpoint == nil)
    }

    @Test(
        "a document without issuer is a discovery error naming it",
        arguments: [
            #"{"token_endpoint":"https://a.example/t"}"#, #"{"issuer":""}"#,
        ])
    func missingIssuer(json: String) {
        #expect {
            try parse(json)
        } throws: { error in
            (error as? DeviceLoginError)?.code == .discovery
                && (error as? DeviceLoginError)?.message == "the server metadata has no issuer"
        }
    }
}
