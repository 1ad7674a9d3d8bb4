import Foundation
import HeraldCore
import HummingbirdTesting
import NIOCore
import Testing

@testable import Herald

/// Backendless RT for the Java SDK's client, which sends each request as one binary argument holding its
/// JSON (a socket.io binary event with one attachment) and casts each answer's argument to `byte[]`:
/// over Engine.IO v4 polling, the answers must come back as binary events whose attachment is the JSON.
@Suite struct RTBinaryTests {
    /// A binary request: the event's text packet with a placeholder, then the JSON as base64.
    static func request(_ event: String, _ json: String) -> [String] {
        [#"451-/shop,[""# + event + #"",{"_placeholder":true,"num":0}]"#, "b" + Data(json.utf8).base64EncodedString()]
    }

    /// The next binary answer named `event`: its text packet, then its attachment read as JSON.
    static func answer(_ rt: RTTests.Poller, _ event: String) async throws -> [String: JSONValue] {
        let packet = try #require(try await rt.next(#"451-/shop,[""# + event + "\""))
        #expect(packet == #"451-/shop,[""# + event + #"",{"_placeholder":true,"num":0}]"#)
        let attachment = try #require(try await rt.next(""))
        #expect(attachment.hasPrefix("b"), "the attachment follows its event: \(attachment)")
        let bytes = try #require(Data(base64Encoded: String(attachment.dropFirst())))
        guard case .object(let object) = try JSONValue.parse(bytes) else { throw HarnessError("not an object: \(attachment)") }
        return object
    }

    @Test(arguments: PublishHarness.Database.available)
    func aJavaSDKClientSubscribesCallsAndReceivesBinaryAnswers(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database, setup: .live) { h in
            let rt = try await RTTests.Poller.open(h, query: "&binary=true")
            #expect(try await rt.next("40/shop,{\"sid\":") != nil)
            try await rt.sendRaw(Self.request("SUB_ON", #"{"id":"c1","name":"PUB_SUB_CONNECT","options":{"channel":"chat"}}"#))
            #expect(try await Self.answer(rt, "SUB_RES") == ["id": .string("c1"), "data": .string("connected")])
            try await rt.sendRaw(
                Self.request("SUB_ON", #"{"id":"m1","name":"PUB_SUB_MESSAGES","options":{"channel":"chat","selector":"room = 'a'"}}"#)
                    + Self.request("SUB_ON", #"{"id":"m2","name":"PUB_SUB_MESSAGES","options":{"channel":"chat"}}"#)
                    + Self.request("MET_REQ", #"{"id":"q1","name":"PUB_SUB_COMMAND","options":{"channel":"chat","type":"t","data":1}}"#))
            // A method's answer comes after the subscriptions before it took effect.
            #expect(try await Self.answer(rt, "MET_RES") == ["id": .string("q1"), "result": .null])
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "not for m1", "headers": {"room": "b"}}"#)
            let id = try await PubSubAPITests.publish(h, "chat", #"{"message": {"x": 1}, "headers": {"room": "a"}}"#)
            var seen: [String: [JSONValue]] = [:]
            for _ in 0..<3 {
                let delivery = try await Self.answer(rt, "SUB_RES")
                guard case .string(let sub)? = delivery["id"], case .object(let data)? = delivery["data"] else {
                    throw HarnessError("not a delivery: \(delivery)")
                }
                seen[sub, default: []].append(data["message"] ?? .null)
                if data["messageId"] == .string(id) { #expect(data["headers"] == .object(["room": .string("a")])) }
            }
            #expect(seen["m1"] == [.object(["x": .integer(1)])])
            #expect(seen["m2"] == [.string("not for m1"), .object(["x": .integer(1)])])
            #expect(!rt.history.contains { $0.contains("SUB_READY") }, "the Java SDK does not listen for SUB_READY")

            try await rt.sendRaw(Self.request("MET_REQ", #"{"id":"q2","name":"RSO_GET","options":{}}"#))
            let refused = try await Self.answer(rt, "MET_RES")
            guard case .object(let error)? = refused["error"] else { throw HarnessError("no error: \(refused)") }
            #expect(refused["id"] == .string("q2") && error["code"] == .string("404"))
        }
    }

    @Test func aBinaryRequestMakesTheConnectionBinaryAndWeborbHintsAreIgnored() async throws {
        try await TestHerald.with(file: false, setup: .live) { h in
            let rt = try await RTTests.Poller.open(h)
            #expect(try await rt.next("40/shop,{\"sid\":") != nil)
            // A byte order mark, a type hint and trailing NULs, as a lenient reader may meet them.
            let json =
                "\u{FEFF}" + #"{"___jsonclass":"java.util.HashMap","id":"c1","name":"PUB_SUB_CONNECT","options":{"channel":"chat"}}"# + "\0"
            try await rt.sendRaw(Self.request("SUB_ON", json))
            #expect(try await Self.answer(rt, "SUB_RES") == ["id": .string("c1"), "data": .string("connected")])
            try await rt.sendRaw(
                Self.request("SUB_ON", #"{"id":"z","name":"PUB_SUB_MESSAGES","options":{"channel":"chat","selector":"a >"}}"#))
            let refused = try await Self.answer(rt, "SUB_RES")
            guard case .object(let error)? = refused["error"] else { throw HarnessError("no error: \(refused)") }
            #expect(refused["id"] == .string("z"))
            #expect(error["message"]?.scalarText?.contains("selector") == true, "\(error)")
        }
    }

    @Test func binaryArgumentsAreReadFromTheirAttachment() throws {
        let data = #"["SUB_ON",{"_placeholder":true,"num":0}]"#
        let request = try RTRequest(data: data, attachments: [ByteBuffer(string: #"{"id":"a","name":"PUB_SUB_CONNECT","options":null}"#)])
        #expect(request == .subscribe(id: "a", type: "PUB_SUB_CONNECT", options: [:]))
        #expect(throws: RTRequest.Refusal.self) { try RTRequest(data: data, attachments: []) }
        #expect(throws: RTRequest.Refusal.self) { try RTRequest(data: data, attachments: [ByteBuffer(string: "not json")]) }
        let unparsable = #expect(throws: RTRequest.Refusal.self) { try RTRequest(data: data, attachments: [ByteBuffer(bytes: [0xFF])]) }
        #expect(unparsable?.fault.code == 8002)
        // A placeholder in a text event, with no attachment, is an argument that is not a request.
        #expect(throws: RTRequest.Refusal.self) { try RTRequest(data: #"["MET_REQ",{"_placeholder":true,"num":1}]"#) }
    }
}
