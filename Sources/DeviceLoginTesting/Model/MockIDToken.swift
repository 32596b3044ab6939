import DeviceLogin

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds the ID tokens the mock server issues (OpenID Connect Core §2): a JWT (RFC 7519) in compact form,
/// `header.payload.signature`, each part base64url.
enum MockIDToken {
    /// The token for `user`, issued by `issuer` to `clientID` at `issuedAt`, living `lifetime` seconds; signed as
    /// `signing` says, with `key` for ``MockAuthorizationServer/IDTokenSigning/signed(_:)``. Nil when a key was
    /// needed and there is none, or signing failed.
    static func make(
        issuer: String,
        clientID: String,
        user: MockAuthorizationServer.User,
        issuedAt: Date,
        lifetime: Int,
        signing: MockAuthorizationServer.IDTokenSigning,
        key: MockSigningKey?,
        nonce: String? = nil
    ) -> String? {
        let issued = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: JSONObject = [
            "iss": .string(issuer),
            "sub": .string(user.subject),
            "aud": .string(clientID),
            "iat": .number(Double(issued)),
            "exp": .number(Double(issued + Int64(lifetime))),
            "name": .string(user.name),
            "email": .string(user.email),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        let header: JSONObject = ["alg": .string(signing.algorithmName), "typ": .string("JWT")]
        let signingInput =
            Base64URL.encode(WireWriter.jsonData(header)) + "." + Base64URL.encode(WireWriter.jsonData(claims))
        switch signing {
        case .unsigned:
            return signingInput + "."
        case .hs256(let key):
            // Through the core's libcrypto, as the RS256 and ES256 signatures are: nil when it cannot be loaded.
            guard let signature = try? SHA256Digest.hmac(key: Array(key.utf8), message: Array(signingInput.utf8))
            else { return nil }
            return signingInput + "." + Base64URL.encode(signature)
        case .signed:
            return try? key?.sign(claims)
        }
    }
}
