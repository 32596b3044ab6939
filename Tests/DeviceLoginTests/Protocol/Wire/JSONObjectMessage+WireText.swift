import Foundation

@testable import DeviceLogin

extension JSONObjectMessage {
    /// The wire form as compact JSON with sorted keys: what tests compare byte for byte.
    var wireText: String {
        get throws { String(decoding: try JSONValue.encode(jsonObject), as: UTF8.self) }
    }

    /// The message decoded from JSON text through `Codable`, as a caller would.
    static func decoding(_ json: String) throws -> Self {
        try JSONDecoder().decode(Self.self, from: Data(json.utf8))
    }
}
