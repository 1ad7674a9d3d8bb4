import NIOHTTP1

extension HTTPRequestHead {
    /// What NIO's WebSocket upgrader insists on before it asks a route: an offer naming `websocket`, one
    /// `Sec-WebSocket-Key`, and `Sec-WebSocket-Version: 13`. Any other offer it drops with the request.
    var isWebSocketHandshake: Bool {
        headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
            && headers["sec-websocket-key"].count == 1 && headers["sec-websocket-version"] == ["13"]
    }

    /// Whether NIO's HTTP decoder stops reading the connection after this request: llhttp flags a request
    /// with an `Upgrade` header and an `upgrade` token in `Connection` as the last HTTP on the connection,
    /// whatever the server answers (CONNECT too, but what follows a CONNECT is a tunnel, never HTTP).
    var stopsHTTPDecoder: Bool {
        method != .CONNECT && headers.contains(name: "upgrade")
            && headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The head with its upgrade offer taken out, when it offers something Herald does not upgrade to
    /// (`h2c`, as curl `--http2` and Java's `HttpClient` offer on every http:// request, or a WebSocket
    /// offer NIO's upgrader would refuse); nil when there is no offer or it is a WebSocket handshake.
    ///
    /// RFC 9110 §7.8 lets a server ignore an offer and answer in the request's own protocol; taking it
    /// out means neither NIO's upgrade handler (which, given an offer no upgrader takes, forwards neither
    /// the head nor the body: Hummingbird then closes without an answer) nor a route sees it. Removes
    /// `Upgrade`, `HTTP2-Settings`, and those two names from `Connection`; keep-alive is untouched.
    func decliningUpgradeOffer() -> HTTPRequestHead? {
        guard headers.contains(name: "upgrade"), !isWebSocketHandshake else { return nil }
        var declined = self
        let connection = headers[canonicalForm: "connection"].filter { !["upgrade", "http2-settings"].contains($0.lowercased()) }
        declined.headers.remove(name: "upgrade")
        declined.headers.remove(name: "http2-settings")
        declined.headers.remove(name: "connection")
        if !connection.isEmpty { declined.headers.add(name: "connection", value: connection.joined(separator: ", ")) }
        return declined
    }
}
