import HeraldAPNs
import HeraldCore
import HeraldDispatch
import HeraldFCM
import HeraldWebPush

extension HeraldConfiguration {
    /// How the dispatch engine makes each app's push clients, from the apps' provider blocks. A factory
    /// reads the key files when first called: a file that went bad after start-up fails that app's
    /// messages with the reason, not the server.
    func providerFactories(clock: any WallClock) -> [String: [PushProvider: ProviderClients.Factory]] {
        var factories: [String: [PushProvider: ProviderClients.Factory]] = [:]
        for app in apps {
            if let apns = app.apns {
                factories[app.id, default: [:]][.apns] = { logger in
                    let configuration = try apns.clientConfiguration(clock: clock)
                    return APNsPushClient(
                        client: try APNsClient(configuration: configuration, logger: logger), topic: apns.topic, retry: retries.apns)
                }
            }
            if let fcm = app.fcm {
                factories[app.id, default: [:]][.fcm] = { logger in
                    let configuration = try fcm.clientConfiguration(clock: clock)
                    return FCMPushClient(client: try FCMClient(configuration: configuration, logger: logger), retry: retries.fcm)
                }
            }
            if let webPush = app.webPush {
                factories[app.id, default: [:]][.webPush] = { logger in
                    let configuration = try webPush.clientConfiguration(clock: clock)
                    return WebPushPushClient(
                        client: try WebPushClient(configuration: configuration, logger: logger), retry: retries.webPush)
                }
            }
        }
        return factories
    }
}

extension AppConfiguration {
    /// What the app's provider blocks add to the checks of its devices' tokens at registration: which
    /// push services a WEB device's subscription may name.
    var tokenRules: DeviceToken.Rules {
        DeviceToken.Rules(webPushHosts: webPush?.hosts ?? WebPushSubscription.HostPolicy())
    }
}
