import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// The WebSocket transport: a session upgraded from polling (the probe `2probe` → `3probe`, then `5`),
/// or a client that starts on a WebSocket. Each packet is one frame: text, or binary for a binary message.
extension EngineServer {
    /// Whether an upgrade request is for this server: a known protocol version asking for the WebSocket
    /// transport, new or for a session that is still polling.
    public func acceptsUpgrade(_ request: Request) -> Bool {
        let query = Self.query(request)
        guard configuration.webSocket, let version = EngineVersion(query: query["EIO"]), query["transport"] == "websocket" else {
            return false
        }
        guard let sid = query["sid"] else { return true }
        guard let session = session(sid) else { return false }
        return session.version == version && !session.isUpgraded
    }

    /// Serves one WebSocket until it or its session closes.
    public func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request) async {
        let query = Self.query(request)
        guard let version = EngineVersion(query: query["EIO"]) else {
            try? await outbound.close(.protocolError, reason: "Unsupported protocol version")
            return
        }
        var messages = inbound.messages(maxSize: configuration.maxPayload).makeAsyncIterator()
        let session: EngineSession
        if let sid = query["sid"] {
            guard let existing = self.session(sid), existing.version == version, !existing.isUpgraded else {
                try? await outbound.close(.policyViolation, reason: "Session ID unknown")
                return
            }
            // The probe. A client that fails it goes on polling.
            do {
                guard case .text("2probe") = try await messages.next() else { return }
                try await outbound.write(.text("3probe"))
                guard case .text("5") = try await messages.next() else { return }
            } catch {
                return
            }
            existing.upgrade()
            session = existing
        } else {
            guard let opened = open(version: version, query: query, path: request.uri.path, transport: .websocket) else {
                try? await outbound.close(WebSocketErrorCode(codeNumber: 1013), reason: "Too many connections: try again later")
                return
            }
            session = opened
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.write(session, to: outbound) }
            await read(&messages, into: session)
            await group.waitForAll()
        }
    }

    private func write(_ session: EngineSession, to outbound: WebSocketOutboundWriter) async {
        while let packets = await session.next() {
            for packet in packets {
                do {
                    try await outbound.write(.custom(Self.frame(packet, version: session.version)))
                } catch {
                    close(session, reason: .transportError)
                    return
                }
            }
        }
        try? await outbound.close(.normalClosure, reason: nil)
    }

    /// One packet as one frame: text, or a binary message as a binary frame (v3: after its type byte).
    static func frame(_ packet: OutboundPacket, version: EngineVersion) -> WebSocketFrame {
        switch packet {
        case .text(let text):
            return WebSocketFrame(fin: true, opcode: .text, data: text)
        case .binary(let bytes) where version == .v3:
            var data = ByteBuffer()
            data.reserveCapacity(bytes.readableBytes + 1)
            data.writeInteger(UInt8(4))
            data.writeImmutableBuffer(bytes)
            return WebSocketFrame(fin: true, opcode: .binary, data: data)
        case .binary(let bytes):
            return WebSocketFrame(fin: true, opcode: .binary, data: bytes)
        }
    }

    private func read(_ messages: inout WebSocketInboundMessageStream.AsyncIterator, into session: EngineSession) async {
        do {
            while let message = try await messages.next() {
                switch message {
                case .text(let text):
                    guard let packet = EnginePacket(text: text, version: session.version) else {
                        close(session, reason: .parseError)
                        return
                    }
                    receive(packet, from: session)
                case .binary(var bytes):
                    // v3 writes the packet's type first, as a byte (4, message); v4 the data alone.
                    if session.version == .v3 {
                        guard bytes.readInteger(as: UInt8.self) == 4 else {
                            close(session, reason: .parseError)
                            return
                        }
                    }
                    receive(EnginePacket(binary: bytes), from: session)
                }
                if session.isClosed { return }
            }
            close(session, reason: .transportClose)
        } catch {
            // Past the size limit, or the connection failed.
            close(session, reason: .transportError)
        }
    }
}
