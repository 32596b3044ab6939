import DeviceLogin

/// What a ``MockAuthorizationServer`` does with one request: answer it, or drop the connection.
///
/// Both front doors act on it: ``InProcessTransport`` returns the response or throws
/// `TransportError` `connectionFailed`; ``LoopbackServer`` writes the response or closes the socket.
public enum MockResponse: Sendable, Hashable {
    /// Answer with this response.
    case respond(HTTPResponse)
    /// Close the connection without answering.
    case dropConnection

    /// The response, unless the connection is dropped.
    public var response: HTTPResponse? {
        if case .respond(let response) = self { return response }
        return nil
    }
}
