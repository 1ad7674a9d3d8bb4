import HeraldCore
import Hummingbird

/// Backendless push templates, which Herald does not have: an empty set, for a client key.
///
/// The Backendless Swift SDK asks for them right after every successful registration on iOS
/// (`GET …/messaging/pushtemplates`), and the Flutter and JS SDKs per device type
/// (`…/pushtemplates/ios`); an error there reaches the app's error handler although the
/// registration succeeded. An empty object is what those SDKs store when an app has no templates.
///
/// `pushtemplates` shares its segment with `{target}` (a channel to POST to, a message id to GET): a
/// constant route there would take POSTs away from publishing (which answers 5044, a reserved name),
/// so `MessageRoutes` hands the GET over, and the two-segment form is matched here by parameters.
struct PushTemplateRoutes {
    static let segment = "pushtemplates"

    let apps: AppDirectory

    func add(to router: Router<HeraldRequestContext>) {
        router.get(RouterPath("/{appId}/{apiKey}/messaging/{target}/{deviceType}")) { _, context in
            guard try AppScope.parameter("target", context) == Self.segment else { throw HeraldFault.noSuchRoute }
            _ = try AppScope.authorize(context, apps: apps, requires: .client)
            return templates()
        }
    }

    /// The answer, once a client key was checked.
    func templates() -> Response {
        JSONBody.response(.object([:]))
    }
}
