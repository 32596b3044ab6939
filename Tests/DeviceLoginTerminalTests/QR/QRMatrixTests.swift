import DeviceLoginTerminal
import Testing

@Suite("QRMatrix")
struct QRMatrixTests {
    @Test("A verification URI encodes at the smallest version for level M")
    func smallestVersion() throws {
        let matrix = try QRMatrix(encoding: Fixtures.completeURI)
        // 51 bytes: version 3-M holds 42, version 4-M holds 62.
        #expect(matrix.version == 4)
        #expect(matrix.size == 33)
        #expect(matrix.modules.count == 33 * 33)
        let low = try QRMatrix(encoding: Fixtures.completeURI, errorCorrection: .low)
        // Version 3-L holds 53 bytes.
        #expect(low.version == 3 && low.size == 29)
        #expect(try QRMatrix(encoding: "A").size == 21)
    }

    @Test("The three finder patterns sit in the corners")
    func finderPatterns() throws {
        let matrix = try QRMatrix(encoding: Fixtures.verificationURI)
        let pattern = [
            "#######", "#.....#", "#.###.#", "#.###.#", "#.###.#", "#.....#", "#######",
        ]
        let last = matrix.size - 7
        for (top, left) in [(0, 0), (0, last), (last, 0)] {
            for (row, text) in pattern.enumerated() {
                let read = (0..<7).map { matrix[row: top + row, column: left + $0] ? "#" : "." }.joined()
                #expect(read == text, "finder at \(top),\(left) row \(row)")
            }
        }
        // The separator beside the top-left finder is light, and so is everything outside the symbol.
        #expect((0..<8).allSatisfy { !matrix[row: 7, column: $0] })
        #expect(!matrix[row: -1, column: 0] && !matrix[row: 0, column: matrix.size])
    }

    @Test("Encoding is case-sensitive")
    func caseSensitive() throws {
        #expect(try QRMatrix(encoding: "https://a.example/AbC") != QRMatrix(encoding: "https://a.example/abc"))
    }

    @Test("Too long, empty or NUL-bearing text is an error, not a crash")
    func errors() throws {
        #expect(throws: QRMatrix.EncodingError.self) { try QRMatrix(encoding: "") }
        #expect(throws: QRMatrix.EncodingError.self) { try QRMatrix(encoding: "https://a.example/\u{0}x") }
        let tooLong = String(repeating: "a", count: 2332)
        let error = try #require(throws: QRMatrix.EncodingError.self) { try QRMatrix(encoding: tooLong) }
        #expect(error.description == "the text is too long for a QR code (2332 bytes)")
        #expect(throws: QRMatrix.EncodingError.self) {
            try QRMatrix(encoding: String(repeating: "a", count: 2954), errorCorrection: .low)
        }
    }

    @Test("The largest text a version 40-M symbol holds still encodes")
    func largest() throws {
        let matrix = try QRMatrix(encoding: String(repeating: "a", count: 2331))
        #expect(matrix.version == 40 && matrix.size == 177)
    }

    @Test("A matrix from modules needs a QR size and a matching count")
    func fromModules() {
        #expect(QRMatrix(size: 21, modules: Array(repeating: false, count: 441))?.version == 1)
        #expect(QRMatrix(size: 22, modules: Array(repeating: false, count: 484)) == nil)
        #expect(QRMatrix(size: 21, modules: Array(repeating: false, count: 440)) == nil)
        #expect(QRMatrix(size: 181, modules: Array(repeating: false, count: 181 * 181)) == nil)
    }
}
