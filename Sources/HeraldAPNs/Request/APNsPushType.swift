/// The `apns-push-type` header. It decides the topic suffix APNs expects and the payload limit.
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
    case alert, background, voip, complication, fileprovider, mdm, location, liveactivity, pushtotalk, widgets, controls

    /// What APNs wants appended to the app's bundle id for this push type.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// APNs's payload limit in bytes: 5 KiB for VoIP, 4 KiB otherwise.
    public var maximumPayloadBytes: Int { self == .voip ? 5120 : 4096 }
}

/// The `apns-priority` header.
public enum APNsPriority: Int, Sendable, Codable {
    /// Deliver immediately (APNs's default).
    case immediate = 10
    /// Power-aware delivery; the only priority background pushes may use.
    case powerConsiderate = 5
    /// Lowest; may be grouped and delayed.
    case low = 1
}
