import DeviceLogin
import Foundation

/// A transport that keeps every secret the server sent (device codes and tokens), to look for them in the output.
struct SecretRecorder: HTTPTransport {
    let inner: any HTTPTransport
    let secrets = Locked<[String]>([])

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] {
            for key in ["device_code", "access_token", "refresh_token", "id_token"] {
                if let value = object[key] as? String { secrets.withLock { $0.append(value) } }
            }
        }
        return response
    }
}
