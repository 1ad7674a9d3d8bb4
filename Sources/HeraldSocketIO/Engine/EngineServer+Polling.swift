import HTTPTypes
import Hummingbird
import NIOCore

/// The HTTP long-polling transport: the handshake (a GET without `sid`), polls (GET, answered once
/// there is something to send; the server's ping makes that at least every ping interval) and the
/// client's packets (POST, answered `ok`).
extension EngineServer {
    /// Answers a request to the Engine.IO path that is not a WebSocket upgrade.
    public func respond(to request: Request) async -> Response {
        let query = Self.query(request)
        guard let version = EngineVersion(query: query["EIO"]) else { return Self.refusal(5, "Unsupported protocol version") }
        guard let transport = query["transport"].flatMap(EngineTransport.init(rawValue:)) else {
            return Self.refusal(0, "Transport unknown")
        }
        guard transport == .polling else { return Self.refusal(3, "Bad request: a WebSocket transport needs an upgrade request") }
        guard query["j"] == nil else { return Self.refusal(3, "Bad request: JSONP polling is not served") }
        if request.method == .options { return Response(status: .noContent) }
        guard let sid = query["sid"] else {
            guard request.method == .get else { return Self.refusal(2, "Bad handshake method") }
            guard let session = open(version: version, query: query, path: request.uri.path, transport: .polling) else {
                return Self.refusal(4, "Too many connections: try again later", status: .serviceUnavailable)
            }
            return Self.payload(await session.next() ?? [], version: version)
        }
        guard let session = session(sid) else { return Self.refusal(1, "Session ID unknown") }
        guard session.version == version, !session.isUpgraded else { return Self.refusal(3, "Bad request: the session is not polling") }
        switch request.method {
        case .get:
            guard session.beginPoll() else {
                close(session, reason: .transportError)
                return Self.refusal(3, "Bad request: overlapping polls")
            }
            defer { session.endPoll() }
            guard let packets = await session.next() else { return Self.refusal(1, "Session ID unknown") }
            return Self.payload(packets.isEmpty ? [OutboundPacket(EnginePacket(.noop).encoded)] : packets, version: version)
        case .post:
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: configuration.maxPayload)
            } catch {
                close(session, reason: .transportError)
                return Self.refusal(3, "Payload too large: at most \(configuration.maxPayload) bytes", status: .contentTooLarge)
            }
            let packets: [EnginePacket]
            do {
                packets = try EnginePayload.decode(Array(body.readableBytesView), version: version)
            } catch {
                close(session, reason: .parseError)
                return Self.refusal(3, "Bad request: \(error.description)")
            }
            for packet in packets where !session.isClosed { receive(packet, from: session) }
            var headers = HTTPFields()
            headers[.contentType] = "text/html"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
        default:
            return Self.refusal(3, "Bad request: method \(request.method) not allowed")
        }
    }

    /// The request's query parameters, the first value of each.
    static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query[String(key)] == nil { query[String(key)] = String(value) }
        return query
    }

    static func payload(_ packets: [OutboundPacket], version: EngineVersion) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=UTF-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: EnginePayload.encode(packets, version: version)))
    }

    /// Engine.IO's error answer: `{"code":N,"message":"…"}`.
    static func refusal(_ code: Int, _ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let json = "{\"code\":\(code),\"message\":\(SocketIOConnection.jsonString(message))}"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
