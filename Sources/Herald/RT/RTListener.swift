import HeraldCore
import HeraldSocketIO

/// Where one RT subscription's results go: its connection's socket, as `SUB_RES` events with its id.
struct RTListener: Sendable {
    let socket: SocketIOSocket
    /// `["SUB_RES",{"id":"…","data":`, made once.
    private let prefix: String

    init(socket: SocketIOSocket, subscriptionId: String) {
        self.socket = socket
        prefix = "[\"SUB_RES\",{\"id\":" + RTListener.string(subscriptionId) + ",\"data\":"
    }

    /// Sends one result (`data` is its JSON text); false when the connection is gone or not reading.
    @discardableResult
    func send(_ data: String) -> Bool { socket.emit(prefix + data + "}]") }

    @discardableResult
    func send(_ data: JSONValue) -> Bool { send(SortedJSON.text(data)) }

    /// A JSON string literal.
    static func string(_ text: String) -> String { SortedJSON.text(JSONValue.string(text)) }
}
