import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// The WebSocket form of a subscription's stream, on the same path as the Server-Sent Events form.
///
/// Every upgrade on the path is accepted, and the checks (app id, key and role, the subscription, the
/// resume position) run once it is open: a refusal is one text frame with Backendless's
/// `{"code","message"}` and a close frame with code 4000 + the HTTP status the same refusal gets over HTTP
/// (4401, 4403, 4404, 4400, 4503), which a browser's WebSocket can read, unlike an HTTP answer to the upgrade.
/// Then each message is one text frame (the JSON object the SSE event carries, `id` its feed position);
/// the client resumes with `?lastEventId=`. Ping frames every heartbeat keep the connection and the
/// subscription alive. The server closes with 1000 when it shuts down, and with 1013 (try again later) when
/// the client fell more than `PubSubHub.buffer` messages behind; either way the client resumes from the
/// last `id` it read.
extension PubSubRoutes {
    static let streamPath = RouterPath("/{appId}/{apiKey}/messaging/{target}/{second}/stream")

    /// The router the HTTP server asks whether an upgrade request becomes a WebSocket.
    func webSocketRouter() -> Router<StreamSocketContext> {
        let router = Router(context: StreamSocketContext.self)
        // Before any route: each gets a context that does not keep the upgrade's reference alive.
        router.add(middleware: WebSocketReferenceMiddleware())
        router.ws(Self.streamPath) { inbound, outbound, context in
            await socket(inbound, outbound, request: context.request, context: context.requestContext)
        }
        return router
    }

    /// Closes codes for a refusal: 4000 + the HTTP status.
    static func closeCode(_ fault: HeraldFault) -> WebSocketErrorCode {
        WebSocketErrorCode(codeNumber: 4000 + Int(FaultMiddleware<HeraldRequestContext>.status(of: fault.kind).code))
    }

    private enum Ended: Sendable {
        /// The client closed (or went away).
        case client
        /// The hub ended the stream: the client fell too far behind (at shutdown the server has closed first).
        case server
    }

    func socket(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request, context: StreamSocketContext)
        async
    {
        let opened: OpenedStream
        do {
            let caller = try AppScope.authorize(context, apps: apps, requires: .client)
            opened = try await open(request, context, app: caller.appId)
        } catch {
            let fault = HeraldFault.answering(error, logger: context.logger, while: "opening a stream")
            let body = SortedJSON.text(JSONValue.object(["code": .integer(Int64(fault.code)), "message": .string(fault.message)]))
            try? await outbound.write(.text(body))
            try? await outbound.close(Self.closeCode(fault), reason: String(fault.code))
            return
        }
        let written = Locked(opened.start)
        let ended: Ended? = await withTaskGroup(of: Ended.self) { group in
            // What the client sends is not read for anything, but reading it answers its pings and sees its close.
            group.addTask {
                do {
                    for try await _ in inbound {}
                } catch {}
                return .client
            }
            group.addTask {
                for await event in opened.events {
                    switch event {
                    case .message(let position, let event):
                        do {
                            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: event.json)))
                        } catch {
                            return .client
                        }
                        written.withLock { $0 = position }
                    case .heartbeat:
                        // The ping frames go out on their own (the server's auto-ping, every heartbeat).
                        await record(opened, written.withLock { $0 })
                    }
                }
                return Task.isCancelled ? .client : .server
            }
            let first = await group.next()
            group.cancelAll()
            return first
        }
        await record(opened, written.withLock { $0 })
        if ended == .server {
            try? await outbound.close(WebSocketErrorCode(codeNumber: 1013), reason: "fell behind; resume with lastEventId")
        }
    }
}
