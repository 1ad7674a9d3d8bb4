import HeraldAMF
import HeraldCore

/// One Flex `RemotingMessage` as the Backendless Java/Android SDK sends it in a `/binary` packet's body:
/// the service (`source`), the operation and its arguments in order.
struct RemotingCall: Sendable {
    static let className = "flex.messaging.messages.RemotingMessage"

    let service: String
    let operation: String
    let arguments: [AMFValue]

    /// Reads a body's value: the message itself, or (as the SDK writes it) an array of one holding it.
    init(_ value: AMFValue) throws(HeraldFault) {
        var value = value
        if case .array(let items, _) = value, items.count == 1 { value = items[0] }
        guard let message = value.object, message.className == Self.className else {
            throw .unparsable("a binary call's body must be a \(Self.className)")
        }
        guard let service = message["source"]?.string, !service.isEmpty else {
            throw .unparsable("the RemotingMessage names no service (its source)")
        }
        guard let operation = message["operation"]?.string, !operation.isEmpty else {
            throw .unparsable("the RemotingMessage names no operation")
        }
        self.service = service
        self.operation = operation
        switch message["body"] {
        case nil, .null?, .undefined?: arguments = []
        case .array(let items, _)?: arguments = items
        case let other?: arguments = [other]
        }
    }
}
