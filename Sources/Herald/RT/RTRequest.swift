import HeraldCore

/// One Backendless RT event from a client, read from its socket.io event: `SUB_ON`, `SUB_OFF` or `MET_REQ`
/// with their one JSON object argument.
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

    /// Reads the event's JSON array; nil for an event that is not Backendless RT's (ignored, as the SDKs
    /// ignore events they do not know).
    init?(data: String) throws(Refusal) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(data.utf8))
        } catch {
            throw Refusal(id: nil, isMethod: false, fault: .unparsable("the event is not JSON"))
        }
        guard case .array(let items) = value, case .string(let event)? = items.first else { return nil }
        guard ["SUB_ON", "SUB_OFF", "MET_REQ"].contains(event) else { return nil }
        let isMethod = event == "MET_REQ"
        guard items.count >= 2, case .object(let payload) = items[1] else {
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

    /// The channel an RT request's options name.
    static func channel(_ options: [String: JSONValue]) throws(HeraldFault) -> ChannelName {
        guard case .string(let name)? = options["channel"] else { throw .invalidParameter("channel", "the channel's name is missing") }
        return try ChannelName(validating: name, property: "channel")
    }
}
