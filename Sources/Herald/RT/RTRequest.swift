import HeraldCore
import NIOCore

/// One Backendless RT event from a client, read from its socket.io event: `SUB_ON`, `SUB_OFF` or `MET_REQ`
/// with their one JSON object argument, or, from the Java SDK, one binary argument holding that object
/// as JSON text (weborb's JSON writer).
enum RTRequest: Equatable {
    /// `SUB_ON {"id","name","options"}`.
    case subscribe(id: String, type: String, options: [String: JSONValue])
    /// `SUB_OFF {"id"}`.
    case unsubscribe(id: String)
    /// `MET_REQ {"id","name","options"}`.
    case method(id: String, name: String, options: [String: JSONValue])

    /// The longest subscription or method id a client may use (the SDKs' are under 40).
    static let maxId = 100

    /// Why an event could not be read. `id` is the request's id when it could be read (its answer goes
    /// to it), nil when not even that.
    struct Refusal: Error, Equatable {
        let id: String?
        let isMethod: Bool
        let fault: HeraldFault
    }

    /// Reads the event's JSON array, its argument from the attachment a placeholder names; nil for an
    /// event that is not Backendless RT's (ignored, as the SDKs ignore events they do not know).
    init?(data: String, attachments: [ByteBuffer] = []) throws(Refusal) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(data.utf8))
        } catch {
            throw Refusal(id: nil, isMethod: false, fault: .unparsable("the event is not JSON"))
        }
        guard case .array(let items) = value, case .string(let event)? = items.first else { return nil }
        guard ["SUB_ON", "SUB_OFF", "MET_REQ"].contains(event) else { return nil }
        let isMethod = event == "MET_REQ"
        var argument = items.count >= 2 ? items[1] : nil
        if let placeholder = argument.flatMap(Self.placeholder) {
            argument = try Self.attachment(placeholder, of: attachments, isMethod: isMethod)
        }
        guard case .object(let payload)? = argument else {
            throw Refusal(id: nil, isMethod: isMethod, fault: .invalidParameter("data", "\(event) takes one JSON object"))
        }
        guard case .string(let id)? = payload["id"], !id.isEmpty, id.count <= Self.maxId else {
            throw Refusal(id: nil, isMethod: isMethod, fault: .invalidParameter("id", "a text of 1 to \(Self.maxId) characters"))
        }
        if event == "SUB_OFF" {
            self = .unsubscribe(id: id)
            return
        }
        guard case .string(let name)? = payload["name"], !name.isEmpty else {
            throw Refusal(id: id, isMethod: isMethod, fault: .invalidParameter("name", "the subscription's or method's name is missing"))
        }
        var options: [String: JSONValue] = [:]
        switch payload["options"] {
        case nil, .null?: break
        case .object(let object)?: options = object
        case let other?:
            throw Refusal(id: id, isMethod: isMethod, fault: .invalidParameter("options", "expected an object, got \(other.typeName)"))
        }
        self = isMethod ? .method(id: id, name: name, options: options) : .subscribe(id: id, type: name, options: options)
    }

    /// The attachment number a socket.io placeholder (`{"_placeholder":true,"num":i}`) stands for.
    static func placeholder(_ value: JSONValue) -> Int? {
        guard case .object(let object) = value, object["_placeholder"] == .bool(true), case .integer(let number)? = object["num"],
            number >= 0, number < Int64(Int32.max)
        else { return nil }
        return Int(number)
    }

    /// An attachment read as the JSON request it holds. Leniently: a byte order mark or trailing NULs are
    /// passed over, and members the request does not use (weborb's type hints) are ignored later.
    static func attachment(_ number: Int, of attachments: [ByteBuffer], isMethod: Bool) throws(Refusal) -> JSONValue {
        guard number < attachments.count else {
            throw Refusal(id: nil, isMethod: isMethod, fault: .unparsable("the event's argument names an attachment it does not have"))
        }
        var bytes = attachments[number].readableBytesView[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while bytes.last == 0 { bytes = bytes.dropLast() }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw Refusal(id: nil, isMethod: isMethod, fault: .unparsable("the event's binary argument is not JSON"))
        }
    }

    /// The channel an RT request's options name.
    static func channel(_ options: [String: JSONValue]) throws(HeraldFault) -> ChannelName {
        guard case .string(let name)? = options["channel"] else { throw .invalidParameter("channel", "the channel's name is missing") }
        return try ChannelName(validating: name, property: "channel")
    }
}
