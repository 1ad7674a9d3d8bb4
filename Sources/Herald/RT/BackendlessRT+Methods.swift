import HeraldCore
import HeraldMetrics
import HeraldSocketIO
import HeraldStore
import Logging

/// Backendless RT's methods (`MET_REQ`) and how a refused request is answered.
extension BackendlessRT {
    // MARK: Methods

    func call(id: String, name: String, options: [String: JSONValue], on connection: RTConnection) {
        switch name {
        case "PUB_SUB_COMMAND":
            do {
                let channel = try RTRequest.channel(options)
                let type = options["type"] ?? .null
                if case .string(let text) = type, text.count > Limits.headerName {
                    throw HeraldFault.tooLong(property: "type", length: text.count, limit: Limits.headerName)
                }
                channels.command(
                    .init(app: connection.app, channel: channel), type: type, data: options["data"] ?? .null, connection: connection.id,
                    userId: connection.userId)
            } catch {
                refuse(id, method: true, HeraldFault.answering(error, logger: logger, while: "RT request"), on: connection)
                return
            }
        case "SET_USER_TOKEN":
            let token: String?
            if case .string(let text)? = options["userToken"] { token = RTConnection.token(text) } else { token = nil }
            connection.userToken.withLock { $0 = token }
        default:
            refuse(
                id, method: true,
                HeraldFault(
                    code: 404, kind: .notFound,
                    message: "RT method '\(name.prefix(64))' is not served by Herald: it serves PUB_SUB_COMMAND and SET_USER_TOKEN"),
                on: connection)
            return
        }
        connection.answer("MET_RES", "{\"id\":\(RTListener.string(id)),\"result\":null}")
    }

    // MARK: Errors

    /// Answers a refused subscription (`SUB_RES` with `error`, code a number) or method (`MET_RES` with
    /// `error`, code digits in a string, which is what the Swift SDK recognises as a method's error).
    func refuse(_ id: String?, method: Bool, _ fault: HeraldFault, on connection: RTConnection) {
        metrics.rtRefused(method ? "method" : "subscription")
        guard let id else {
            logger.debug("RT event refused", metadata: ["herald.app": "\(connection.app)", "herald.error": "\(fault.message)"])
            return
        }
        let error = JSONValue.object([
            "code": method ? .string(String(fault.code)) : .integer(Int64(fault.code)), "message": .string(fault.message),
        ])
        connection.answer(method ? "MET_RES" : "SUB_RES", SortedJSON.text(JSONValue.object(["id": .string(id), "error": error])))
    }
}
