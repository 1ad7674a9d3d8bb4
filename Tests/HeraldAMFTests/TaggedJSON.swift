import Foundation
import HeraldAMF

/// The cross-check's JSON form of a packet (Tests/amf/pyamf_check.py writes and reads it): each value
/// tagged with its AMF type, doubles and dates by their IEEE bits in hex so that -0.0 and infinities survive.
enum TaggedJSON {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func packet(_ json: Any) throws -> AMFPacket {
        guard let packet = json as? [String: Any], let version = packet["version"] as? Int,
            let headers = packet["headers"] as? [[String: Any]], let messages = packet["messages"] as? [[String: Any]]
        else { throw Malformed(description: "not a packet: \(json)") }
        return AMFPacket(
            version: UInt16(version),
            headers: try headers.map {
                AMFHeader(
                    name: try text($0["name"]), mustUnderstand: $0["mustUnderstand"] as? Bool ?? false,
                    value: try value($0["value"] as Any))
            },
            messages: try messages.map {
                AMFMessage(targetURI: try text($0["target"]), responseURI: try text($0["response"]), value: try value($0["value"] as Any))
            })
    }

    static func json(_ packet: AMFPacket) -> [String: Any] {
        [
            "version": Int(packet.version),
            "headers": packet.headers.map { ["name": $0.name, "mustUnderstand": $0.mustUnderstand, "value": json($0.value)] },
            "messages": packet.messages.map { ["target": $0.targetURI, "response": $0.responseURI, "value": json($0.value)] },
        ]
    }

    static func value(_ json: Any) throws -> AMFValue {
        guard let tagged = json as? [String: Any], let tag = tagged["t"] as? String else {
            throw Malformed(description: "not a tagged value: \(json)")
        }
        switch tag {
        case "null": return .null
        case "undefined": return .undefined
        case "bool": return .bool(tagged["v"] as? Bool ?? false)
        case "int": return .int(Int32(try number(tagged["v"])))
        case "double": return .double(try bits(tagged["bits"]))
        case "date": return .date(try bits(tagged["bits"]))
        case "string": return .string(try text(tagged["v"]))
        case "xml": return .xml(try text(tagged["v"]))
        case "bytes":
            let hex = try text(tagged["hex"])
            let bytes = stride(from: 0, to: hex.utf8.count, by: 2).compactMap { start in
                UInt8(String(decoding: hex.utf8.dropFirst(start).prefix(2), as: UTF8.self), radix: 16)
            }
            guard bytes.count * 2 == hex.utf8.count else { throw Malformed(description: "not hex: \(hex)") }
            return .bytes(bytes)
        case "array":
            return .array(
                try (tagged["items"] as? [Any] ?? []).map(value), associative: try members(tagged["assoc"]))
        case "object":
            return .object(
                AMFObject(
                    className: try text(tagged["class"]), members: try members(tagged["members"]),
                    isDynamic: tagged["dynamic"] as? Bool ?? false))
        default: throw Malformed(description: "unknown tag \(tag)")
        }
    }

    static func json(_ value: AMFValue) -> [String: Any] {
        switch value {
        case .null: ["t": "null"]
        case .undefined: ["t": "undefined"]
        case .bool(let flag): ["t": "bool", "v": flag]
        case .int(let number): ["t": "int", "v": Int(number)]
        case .double(let number): ["t": "double", "bits": String(format: "%016llx", number.bitPattern)]
        case .date(let milliseconds): ["t": "date", "bits": String(format: "%016llx", milliseconds.bitPattern)]
        case .string(let text): ["t": "string", "v": text]
        case .xml(let text): ["t": "xml", "v": text]
        case .bytes(let data): ["t": "bytes", "hex": data.map { String(format: "%02x", $0) }.joined()]
        case .array(let items, let associative):
            ["t": "array", "items": items.map(json), "assoc": associative.map { [$0.name, json($0.value)] }]
        case .object(let object):
            [
                "t": "object", "class": object.className, "dynamic": object.isDynamic,
                "members": object.members.map { [$0.name, json($0.value)] },
            ]
        }
    }

    private static func members(_ json: Any?) throws -> [AMFMember] {
        try (json as? [[Any]] ?? []).map { pair in
            guard pair.count == 2 else { throw Malformed(description: "not a member: \(pair)") }
            return AMFMember(try text(pair[0]), try value(pair[1]))
        }
    }

    private static func text(_ json: Any?) throws -> String {
        guard let text = json as? String else { throw Malformed(description: "not a string: \(String(describing: json))") }
        return text
    }

    private static func number(_ json: Any?) throws -> Int {
        guard let number = json as? Int else { throw Malformed(description: "not an integer: \(String(describing: json))") }
        return number
    }

    private static func bits(_ json: Any?) throws -> Double {
        guard let hex = json as? String, let bits = UInt64(hex, radix: 16) else {
            throw Malformed(description: "not 16 hex digits: \(String(describing: json))")
        }
        return Double(bitPattern: bits)
    }
}
