/// Live Activity faults (5080–5086).
extension HeraldFault {
    /// 5080: a Live Activity token for a device that is not an iOS device.
    public static func liveActivitiesNeedIOS(_ os: DeviceOS) -> HeraldFault {
        HeraldFault(
            code: 5080, kind: .validation,
            message: "Live Activities are for iOS devices (ActivityKit); this device is registered as \(os.rawValue)")
    }

    /// 5081: the device has no push-to-start token of that type, or no activity of that id.
    public static let unknownLiveActivity = HeraldFault(
        code: 5081, kind: .notFound, message: "The device has no such Live Activity token")

    /// 5082: a Live Activity publish for an app whose APNs block uses a certificate.
    public static func liveActivitiesNeedTokenAuth(app: String) -> HeraldFault {
        HeraldFault(
            code: 5082, kind: .validation,
            message:
                "Live Activities need APNs token authentication: app '\(app)' uses a certificate (apps[].apns.certificateFile); "
                + "configure teamId, keyId and privateKeyFile instead")
    }

    /// 5083: a Live Activity publish or broadcast channel for an app with no APNs block.
    public static func liveActivitiesNeedAPNs(app: String) -> HeraldFault {
        HeraldFault(code: 5083, kind: .validation, message: "APNs is not configured for app '\(app)': it has no apps[].apns block")
    }

    /// 5084: Apple's channel management refused a request or did not answer (Apple's reason in the text).
    public static func broadcastChannelRefused(_ detail: String) -> HeraldFault {
        HeraldFault(code: 5084, kind: .badGateway, message: "APNs channel management: \(detail)")
    }

    /// 5085: the app has no APNs broadcast channel of that id.
    public static let unknownBroadcastChannel = HeraldFault(
        code: 5085, kind: .notFound, message: "The app has no APNs broadcast channel of that id")

    /// 5086: the app's APNs block names a custom server without a channel management host.
    public static func broadcastChannelsNotConfigured(app: String) -> HeraldFault {
        HeraldFault(
            code: 5086, kind: .validation,
            message: "APNs broadcast channels are not configured for app '\(app)': a custom environment needs apps[].apns.manageUrl")
    }
}
