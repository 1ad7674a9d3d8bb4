import HeraldAMF
import HeraldCore
import Logging

/// The Backendless Java/Android SDK's Messaging calls over AMF (`POST /{appId}/{apiKey}/binary`): each
/// operation turns its arguments into what the REST route reads and runs the REST route's own code
/// (same checks, same faults, same metrics), then types the result as the SDK casts it.
struct BackendlessBinary: Sendable {
    static let registrationService = "com.backendless.services.messaging.DeviceRegistrationService"
    static let messagingService = "com.backendless.services.messaging.MessagingService"
    static let rtService = "com.backendless.rt.RTService"

    /// Who called, from the request's path, and where this Herald's RT server is for them.
    struct Caller: Sendable {
        let appId: String
        let apiKey: String
        let rtURL: String
    }

    let registrations: RegistrationRoutes
    let messages: MessageRoutes
    let templates: PushTemplateRoutes
    let pubsub: PubSubRoutes
    let apps: AppDirectory
    let clock: any WallClock
    let logger: Logger

    /// One call's answer: its result, or its fault (a Backendless code the SDK shows as the app's fault).
    func answer(_ call: RemotingCall, from caller: Caller) async -> AMFMessage {
        do {
            return RemotingAnswer.acknowledge(try await run(call, from: caller), now: clock.now)
        } catch {
            return RemotingAnswer.error(HeraldFault.answering(error, logger: logger, while: "binary call"), now: clock.now)
        }
    }

    /// Checks the key (any role names the app; the operation's role is checked once the operation is known)
    /// and runs the operation.
    func run(_ call: RemotingCall, from caller: Caller) async throws -> AMFValue {
        let (appId, apiKey) = (caller.appId, caller.apiKey)
        _ = try apps.authorize(appId: appId, apiKey: apiKey, requires: .client)
        let arguments = BinaryArguments(values: call.arguments)
        switch (call.service, call.operation) {
        case (Self.rtService, "lookup"):
            // The Java SDK's RT address, as `/rt/lookup` answers the Swift SDK.
            return .string(caller.rtURL)
        case (Self.registrationService, _):
            let app = try apps.authorize(appId: appId, apiKey: apiKey, requires: .client)
            return try await registration(call, arguments, app: app)
        case (Self.messagingService, "pollMessages"):
            let app = try apps.authorize(appId: appId, apiKey: apiKey, requires: .client)
            return try await poll(arguments, app: app)
        case (Self.messagingService, let operation) where Self.publishing.contains(operation):
            let app = try apps.authorize(appId: appId, apiKey: apiKey, requires: .server, denied: .publishDenied)
            return try await messaging(call, arguments, app: app)
        default:
            throw Self.notServed(call)
        }
    }

    /// The MessagingService operations that need a server key, as their REST routes do.
    static let publishing: Set<String> = ["publish", "getMessageStatus", "cancel", "pushWithTemplate"]

    /// What Herald answers a call outside Messaging (data, users, files, email): which calls it serves.
    static func notServed(_ call: RemotingCall) -> HeraldFault {
        HeraldFault(
            code: 404, kind: .notFound,
            message:
                "\(call.service.prefix(100)).\(call.operation.prefix(64)) is not served by Herald: it serves Messaging (RTService: lookup; DeviceRegistrationService: registerDevice, getDeviceRegistrationByDeviceId, unregisterDevice, refreshDeviceToken; MessagingService: publish, getMessageStatus, cancel, pushWithTemplate, pollMessages)"
        )
    }
}
