import Testing

@testable import HeraldSocketIO

@Suite struct SocketPacketTests {
    @Test func eventsWithANamespaceDecode() throws {
        let packet = try SocketPacket(decoding: "2/app-1,[\"SUB_ON\",{\"id\":\"a\"}]")
        #expect(packet.kind == .event)
        #expect(packet.namespace == "/app-1")
        #expect(packet.ackId == nil)
        #expect(packet.data == "[\"SUB_ON\",{\"id\":\"a\"}]")
        #expect(SocketPacket.eventName(packet.data) == "SUB_ON")
    }

    @Test func connectAndDisconnectDecode() throws {
        let root = try SocketPacket(decoding: "0")
        #expect(root.kind == .connect && root.namespace == "/" && root.data.isEmpty)
        let v5 = try SocketPacket(decoding: "0/app,")
        #expect(v5.kind == .connect && v5.namespace == "/app")
        let withAuth = try SocketPacket(decoding: "0/app,{\"token\":\"x\"}")
        #expect(withAuth.data == "{\"token\":\"x\"}")
        // socket.io 2 clients may put a query on the namespace.
        let v4 = try SocketPacket(decoding: "0/app?apiKey=k,")
        #expect(v4.namespace == "/app" && v4.namespaceQuery == "apiKey=k")
        let leave = try SocketPacket(decoding: "1/app,")
        #expect(leave.kind == .disconnect && leave.namespace == "/app")
    }

    @Test func ackIdsAndBinaryAttachmentCountsAreRead() throws {
        let withAck = try SocketPacket(decoding: "2/app,12[\"x\"]")
        #expect(withAck.ackId == 12 && withAck.data == "[\"x\"]")
        let binary = try SocketPacket(decoding: "51-/app,[\"x\",{\"_placeholder\":true,\"num\":0}]")
        #expect(binary.kind == .binaryEvent && binary.namespace == "/app")
    }

    @Test(arguments: ["", "9", "2/app,hello", "2/app,{\"a\":1}", "5/app,[]", "2/app,99999999999999999[]", "x"])
    func malformedPacketsAreRefused(text: String) {
        #expect(throws: SocketPacket.Malformed.self) { try SocketPacket(decoding: text) }
    }

    @Test func longNamespacesAreRefused() {
        let name = "/" + String(repeating: "a", count: SocketPacket.maxNamespace + 1)
        #expect(throws: SocketPacket.Malformed.self) { try SocketPacket(decoding: "0\(name),") }
    }

    @Test func packetsEncodeAsSocketIOWritesThem() {
        #expect(SocketPacket(.connect, namespace: "/app", data: "{\"sid\":\"s\"}").encoded == "0/app,{\"sid\":\"s\"}")
        #expect(SocketPacket(.connect).encoded == "0")
        #expect(SocketPacket(.event, namespace: "/", data: "[\"a\"]").encoded == "2[\"a\"]")
        #expect(SocketPacket(.disconnect, namespace: "/app").encoded == "1/app,")
    }

    @Test func eventNamesAreReadOnlyFromPlainStrings() {
        #expect(SocketPacket.eventName(" [ \"MET_REQ\" , {}]") == "MET_REQ")
        #expect(SocketPacket.eventName("[1,2]") == nil)
        #expect(SocketPacket.eventName("[\"a\\\"b\"]") == nil)
        #expect(SocketPacket.eventName("[\"unterminated") == nil)
    }

    @Test func refusalsDifferByProtocol() {
        #expect(SocketIOConnection.refusal("no \"key\"", namespace: "/a", version: .v4).encoded == "4/a,{\"message\":\"no \\\"key\\\"\"}")
        #expect(SocketIOConnection.refusal("bad", namespace: "/a", version: .v3).encoded == "4/a,\"bad\"")
    }
}
