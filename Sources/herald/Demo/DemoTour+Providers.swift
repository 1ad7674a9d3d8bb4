import HeraldCore

/// How the tour speaks of each push service's mock: what it checks, what it answers for a gone token,
/// and how it agrees with Herald's counts, each in that service's own terms.
extension DemoTour {
    /// How the tour introduces the mock of `provider`: its transport and the credentials it checks.
    static func about(_ provider: PushProvider) -> String {
        switch provider {
        case .apns: "TLS; token auth TESTKEY001/TESTTEAM01; topic \(DemoProviders.topic)"
        case .fcm: "TLS; OAuth2 access tokens for the test service account herald-test"
        case .webPush: "TLS; VAPID with the test key only, subject \(DemoProviders.vapidSubject); every push decrypted"
        }
    }

    /// What the mock of `provider` answers for a token that is gone.
    static func gone(_ provider: PushProvider) -> String {
        switch provider {
        case .apns: "410 Unregistered, dated after their registration"
        case .fcm: "404 UNREGISTERED"
        case .webPush: "410 Gone"
        }
    }

    /// "a, b and c".
    static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    /// "The mock … agrees: …", in each service's own terms.
    static func agrees(_ provider: PushProvider, _ seen: DemoProviders.Seen) -> String {
        let (requests, accepted, gone) = (DemoFormat.count(seen.requests), DemoFormat.count(seen.accepted), DemoFormat.count(seen.gone))
        return switch provider {
        case .apns:
            "The mock APNs agrees: \(requests) requests, \(accepted) accepted, \(gone) answered 410 Unregistered, "
                + "over \(DemoFormat.count(seen.connectionsOpened, "TLS connection"))."
        case .fcm:
            "The mock FCM agrees: \(requests) sends, \(accepted) accepted, \(gone) answered UNREGISTERED, "
                + "\(DemoFormat.count(seen.tokenRequests, "access token")) fetched for all of them."
        case .webPush:
            "The mock Web Push agrees: \(requests) pushes, \(accepted) accepted and decrypted with their browsers' keys, "
                + "\(gone) answered 410 Gone, over \(DemoFormat.count(seen.connectionsOpened, "TLS connection"))."
        }
    }
}
