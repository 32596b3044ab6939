import Testing

@testable import DeviceLogin

@Suite struct TokenStoreKindTests {
    typealias Offer = TokenStoreChoice.Offer

    static let unlocked = Offer(secretServiceUnlocked: true, secretServiceAnswers: true, keyringUsable: true)
    static let locked = Offer(secretServiceUnlocked: false, secretServiceAnswers: true, keyringUsable: true)
    static let noBus = Offer(secretServiceUnlocked: false, secretServiceAnswers: false, keyringUsable: true)
    static let nothing = Offer(secretServiceUnlocked: false, secretServiceAnswers: false, keyringUsable: false)

    static let table: [(String, Offer, TokenStoreChoice)] = [
        ("auto", unlocked, .use(.secretService, announced: false)),
        ("auto", locked, .use(.file, announced: true)),
        ("auto", noBus, .use(.file, announced: true)),
        ("auto", nothing, .use(.file, announced: true)),
        ("file", unlocked, .use(.file, announced: false)),
        ("file", nothing, .use(.file, announced: false)),
        ("keyring", noBus, .use(.keyring, announced: false)),
        ("keyring", nothing, .unavailable(.keyring, reason: "")),
        ("secret-service", unlocked, .use(.secretService, announced: false)),
        ("secret-service", locked, .use(.secretService, announced: false)),
        ("secret-service", noBus, .unavailable(.secretService, reason: "")),
    ]

    @Test(arguments: table) func choosesTheStore(word: String, offer: Offer, expected: TokenStoreChoice) throws {
        let request = try #require(TokenStoreRequest(word))
        let choice = TokenStoreChoice.choose(request, offer: offer)
        switch (choice, expected) {
        case (.unavailable(let kind, let reason), .unavailable(let expectedKind, _)):
            #expect(kind == expectedKind)
            #expect(!reason.isEmpty)
        default:
            #expect(choice == expected)
        }
    }

    @Test(arguments: ["", "Auto", "keyrings", "secret_service", "gnome"]) func refusesOtherWords(word: String) {
        #expect(TokenStoreRequest(word) == nil)
    }

    @Test func theWordsAreTheStoresAndAuto() {
        #expect(TokenStoreRequest.names == ["auto", "file", "keyring", "secret-service"])
    }
}
