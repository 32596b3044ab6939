/// Compact JWSs and their public keys made by another JOSE implementation (Python's joserfc 1.8, which Authlib uses)
/// for each algorithm, over the payload `{"msg":"signed by joserfc"}`, with the key's RFC 7638 thumbprint as joserfc
/// computes it: what this library verifies must be what others sign.
enum JOSEVectors {
    struct Vector: Sendable {
        var algorithm: String
        var publicKey: String
        var token: String
        var thumbprint: String
    }

    static let all: [Vector] = [
        Vector(
            algorithm: "RS256",
            publicKey: [
                "{\"e\": \"AQAB\", \"kid\": \"rs256-1\", \"kty\": \"RSA\", \"n\": \"tXDRtguK6sBRQTbELAqA-",
                "2OGXgpqFqM3WGkTCrsijp9r1490idIaUDlmGiWW6Eu5n_xhN_Z-ZRKRxXF-NF1Ud1Q3OiTyeGolDx_QWN_12g-Kq",
                "SOgU7L6SlN8c-5wyQ9stEBx0sHyunrzmYuW3hqdFxqY9SKHW4C_QYpAv76SHKsLIcxamGrFHE0DuRVev5lv3f6SJ",
                "7ihBdvRYFBaVX_YAb_XswYzCIbZ2g6gnIAy5GwUfsbyJEmtdwIx4-_1Z86eXkpEBqMtANZRg71FvYORhergA1nxS",
                "G0a5EpB28lpX2INHyicbwMMYNXsSDiU1bGtDD8-En6jKegV87GPJcp9UQ\"}",
            ].joined(),
            token: [
                "eyJhbGciOiJSUzI1NiIsImtpZCI6InJzMjU2LTEifQ.eyJtc2ciOiJzaWduZWQgYnkgam9zZXJmYyJ9.BJMrraCw",
                "qsIAGFJY8_d7Bumph35BLglny2KH8aP8kvnH3uwHm8VXzxifXNi9hajM9qxdGFB9apDJkSEUML1aT2xDv6Sbz12i",
                "wrOwOuPl4p-ZymOcDtNGQ6_eW2ONAybA3GCmHyX9bwj2i8WInm0A_Ln7avBD4GwLYEcLdPX09RqucPnvnZ6L8ohL",
                "V4b2dlynTZ9KhgXDhsyaU-eY1mmSipyggH9MSVI8PZfN06ERhI4PvnycpHkJafZY2oiPx5WZTs8Sq3ENEKtC78vQ",
                "GXsJQ2zT0ASULiKhdw7gn-68bDNGX63AmiFuDwJ8IyRpZBBXrswH1WC43PvAnL0ov5TBrg",
            ].joined(),
            thumbprint: "_HPJaP5SO0op3vyelQCvLFPzlhk2r4q5A-wedS6YTFI"
        ),
        Vector(
            algorithm: "PS256",
            publicKey: [
                "{\"e\": \"AQAB\", \"kid\": \"ps256-1\", \"kty\": \"RSA\", \"n\": \"pbVKdzvTx_Das85VxWwPm",
                "W_9QlGopMo2fSVykCPRVDuNmooDugqhVGnzBoq_S_QRd_EmASPShXvOQdtRQqFYlQP0Qs90kqY2Z5B1bWQk9U2AN",
                "msyB8jh1aKjEFCII0SesqaSwJmVPiNiAaL5CiAiDkishx3rwiz31MQeQAnN4Twjb79VXao0cDIsRNNdTbyveVRiV",
                "izPMeI3TJm_S7kKVAzykSLxlZRhmVuNYlgkyejqKtxripqfzTf2crGvksRO7niOb4gQ4hO2Qrq_3pIn5_4L-ydVw",
                "VfwaHRbtw69rofFnWiyaDsbRLvWTqc-txy3ElO5N0GRpmWoOigfK4OVtw\"}",
            ].joined(),
            token: [
                "eyJhbGciOiJQUzI1NiIsImtpZCI6InBzMjU2LTEifQ.eyJtc2ciOiJzaWduZWQgYnkgam9zZXJmYyJ9.Elab0bUz",
                "pB91_OXCx-ryQGRTz728_HQuBF-oOTO-puKb-KKBOUjuykkQAHtFIixWS5itfF-OmlqL10IBjvzuiYlQcgmFWoVb",
                "yJCOgsLCIWcc253vM2KlMOTfKspDvqcjSy0ytQz_bHEDwnQYmlhTrnws-vzvTcl1H4ylmmnYLid3dc0moP_GDyzf",
                "OKe0nw8ErYcufJnWaxS5RaDUHu-R7c1u8rXhUjUAIaWTKBGeDwgrsnL1ROUuSOy2MozXViJj84yTE8rv6A34EIHe",
                "pVFb4mdHiXmfdySfMxTeWLa1zBMmPPtHh73P5m9CPg18gq6P4rp-dPQy7G5dyUU4PubmoA",
            ].joined(),
            thumbprint: "ODp9wG1Dbi-GwhBvG75CmH4KuHir3E_jg36OQgSjBlY"
        ),
        Vector(
            algorithm: "ES256",
            publicKey: [
                "{\"crv\": \"P-256\", \"kid\": \"es256-1\", \"kty\": \"EC\", \"x\": \"nbe5pgs3OQyL18XXJLJ",
                "EH-s1THNtSe1RViP_9RgJSnA\", \"y\": \"Ubgji2tgH8xqbz9WoTmxU09m4khvwxLGPTkOJwKQ7l8\"}",
            ].joined(),
            token: [
                "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVzMjU2LTEifQ.eyJtc2ciOiJzaWduZWQgYnkgam9zZXJmYyJ9.tYCpIiqH",
                "WdMntF-kizcJFjKcG4er_EhXPaQnHfPAISVvritsNfvLse1TNGTvhZUMga5ZpdODt7IVjD7oMTf7mA",
            ].joined(),
            thumbprint: "niQPMveGHvWs40au-aZ59dOUN49xeBsQKxGctgOx2XM"
        ),
        Vector(
            algorithm: "ES384",
            publicKey: [
                "{\"crv\": \"P-384\", \"kid\": \"es384-1\", \"kty\": \"EC\", \"x\": \"QQNOWquKTn9gvpuV7h-",
                "5TOZDPgihZC6STEq4VmGu1LDeYNGVKcmWZX3baXfhA-Zw\", \"y\": \"8Xpnqxp4eOPrimCJqo0Fw6Ymb1E7a2",
                "xtGhvdPx7aMOUmQjLvN1-xjUajFRuSplL6\"}",
            ].joined(),
            token: [
                "eyJhbGciOiJFUzM4NCIsImtpZCI6ImVzMzg0LTEifQ.eyJtc2ciOiJzaWduZWQgYnkgam9zZXJmYyJ9.bmQCOUcH",
                "9waRX4mCPtiOWSNHE30VJr5ClwqB8eJ2LusLvQTqrrT6Z9VYIpxwMSl5JIndtPkarT3OI7AxXVOyNDiA3MFcunxC",
                "der0seXLwk_bnA00LHd8n7u_4sm7Ywp4",
            ].joined(),
            thumbprint: "4gkz7-1SIQ4CaOj6tOAs2uKNRpkVaGzEQVSqXZBfNNg"
        ),
        Vector(
            algorithm: "EdDSA",
            publicKey: [
                "{\"crv\": \"Ed25519\", \"kid\": \"eddsa-1\", \"kty\": \"OKP\", \"x\": \"l7ZusJ1rdxuTPXuA",
                "GtAmrM3bqDU3X5ERLoIt91jBPDw\"}",
            ].joined(),
            token: [
                "eyJhbGciOiJFZERTQSIsImtpZCI6ImVkZHNhLTEifQ.eyJtc2ciOiJzaWduZWQgYnkgam9zZXJmYyJ9.x2qC85Uh",
                "yYtkt-hnZ9atdGDgsI3V826Ef9iYa30vFYB9IUpTW6PQ0rbvkZNEieMu5ZKiHlqdlwkjitjvdnWICg",
            ].joined(),
            thumbprint: "z1_C1nCkcMS0h6y6CL19HQCplQ8j9I9fu_H7UFhdYYI"
        ),
    ]
}
