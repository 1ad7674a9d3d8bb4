import HeraldCore
import HeraldSocketIO
import HeraldStore
import NIOCore

/// One client's RT connection in its app's namespace: its subscriptions by id, its user token, and
/// whether it speaks binary (the Java SDK: its requests and answers are binary events holding JSON).
final class RTConnection: Sendable {
    /// What one subscription is.
    enum Kind: Sendable {
        case connect(ChannelName)
        /// A message listener: its stream on the hub, and the last feed position it was sent.
        case messages(ChannelName, stream: Int, subscription: Subscription, sent: Locked<Int64>)
        case commands(ChannelName)
        case users(ChannelName)

        var type: String {
            switch self {
            case .connect: "PUB_SUB_CONNECT"
            case .messages: "PUB_SUB_MESSAGES"
            case .commands: "PUB_SUB_COMMANDS"
            case .users: "PUB_SUB_USERS"
            }
        }

        var channel: ChannelName {
            switch self {
            case .connect(let channel), .messages(let channel, _, _, _), .commands(let channel), .users(let channel): channel
            }
        }
    }

    let socket: SocketIOSocket
    let app: String
    /// The SDK's `clientId` (the same on every reconnection of one app instance), if it sent one.
    let clientId: String?
    let subscriptions = Locked([String: Kind]())
    let userToken: Locked<String?>
    /// Answers go as binary events: the handshake asked (`binary=true`, as the Java SDK does), or the
    /// client sent a binary request.
    let binary: Locked<Bool>

    init(socket: SocketIOSocket, app: String) {
        self.socket = socket
        self.app = app
        let clientId = socket.session.query["clientId"].flatMap { $0.isEmpty || $0.count > 100 ? nil : $0 }
        self.clientId = clientId
        userToken = Locked(Self.token(socket.session.query["userToken"]))
        binary = Locked(socket.session.query["binary"] == "true")
    }

    var isBinary: Bool { binary.withLock { $0 } }

    /// Sends an answer (`SUB_RES`, `MET_RES`) whose one argument is `object`, JSON text: as the event's
    /// argument, or, to a binary client, as its attachment.
    @discardableResult
    func answer(_ event: String, _ object: String) -> Bool {
        if isBinary { return socket.emit(binaryEvent: event, attachment: ByteBuffer(string: object)) }
        return socket.emit("[" + RTListener.string(event) + "," + object + "]")
    }

    var id: String { socket.connectionId }

    /// The user's objectId: Herald has no Backendless users, so RT reports none (`null`).
    var userId: String? { nil }

    /// A user token as the SDKs send it: the JS SDK writes the text `null` when nobody is logged in.
    static func token(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text != "null" else { return nil }
        return text
    }

    func resumeKey(_ subscription: String) -> RTResume.Key? {
        clientId.map { RTResume.Key(app: app, clientId: $0, subscription: subscription) }
    }
}
