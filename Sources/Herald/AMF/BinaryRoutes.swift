import HeraldAMF
import HeraldCore
import Hummingbird
import NIOCore

/// `POST /{appId}/{apiKey}/binary`: the Backendless Java/Android SDK's remote calls. Every answer is
/// HTTP 200 with an AMF packet, faults included (an unknown app, a bad key, an unreadable packet): the SDK
/// reads nothing else as a fault. One answer per body of the request, in order.
struct BinaryRoutes {
    static let contentType = "application/x-amf"
    /// Bodies per packet: the SDK sends one; more is batching nobody needs.
    static let maxCalls = 16

    let binary: BackendlessBinary
    let appInfo: AppInfoRoutes

    func add(to router: Router<HeraldRequestContext>) {
        router.post("/{appId}/{apiKey}/binary") { request, context in
            try await answer(request, context)
        }
    }

    func answer(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let caller: BackendlessBinary.Caller
        let packet: AMFPacket
        do {
            caller = BackendlessBinary.Caller(
                appId: try AppScope.parameter("appId", context), apiKey: try AppScope.parameter("apiKey", context),
                rtURL: appInfo.rtURL(for: request).description)
            packet = try await Self.read(request)
        } catch let fault as HeraldFault {
            var response = Self.response(AMFPacket(messages: [RemotingAnswer.error(fault, now: binary.clock.now)]))
            // A body that was not read whole is not waited for.
            if fault.kind == .tooLarge { response.headers[.connection] = "close" }
            return response
        }
        var answers: [AMFMessage] = []
        answers.reserveCapacity(packet.messages.count)
        for message in packet.messages {
            do {
                answers.append(await binary.answer(try RemotingCall(message.value), from: caller))
            } catch {
                answers.append(RemotingAnswer.error(error, now: binary.clock.now))
            }
        }
        return Self.response(AMFPacket(messages: answers))
    }

    /// The request's packet: 413's fault past the body limit, 8002's for bytes that are not an AMF packet
    /// of at least one and at most `maxCalls` bodies.
    static func read(_ request: Request) async throws -> AMFPacket {
        let buffer = try await JSONBody.collect(request)
        let packet: AMFPacket
        do {
            packet = try AMFPacket(decoding: Array(buffer.readableBytesView))
        } catch {
            throw HeraldFault.unparsable(error.description)
        }
        guard !packet.messages.isEmpty else { throw HeraldFault.unparsable("the AMF packet has no body: a binary call is expected") }
        guard packet.messages.count <= maxCalls else {
            throw HeraldFault.unparsable("the AMF packet has \(packet.messages.count) bodies; at most \(maxCalls) are served")
        }
        return packet
    }

    static func response(_ packet: AMFPacket) -> Response {
        Response(
            status: .ok, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: packet.encoded())))
    }
}
