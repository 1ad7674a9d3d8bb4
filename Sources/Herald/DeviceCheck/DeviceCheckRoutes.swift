import HeraldCore
import HeraldDeviceCheck
import HeraldMetrics
import Hummingbird
import Logging

/// Apple DeviceCheck for the app's backend: validate a device token, and query or update the device's
/// two bits. Every route needs a `server` key; Herald adds `transaction_id` and `timestamp` itself.
struct DeviceCheckRoutes {
    let clients: DeviceCheckClients
    let apps: AppDirectory
    let metrics: HeraldMetrics

    func add(to router: Router<HeraldRequestContext>) {
        let group = router.requiring(.server, apps: apps)
        for operation in DeviceCheckOperation.allCases {
            group.post(RouterPath("/{appId}/{apiKey}/devicecheck/" + operation.name)) { request, context in
                try await call(operation, request, context)
            }
        }
    }

    func call(_ operation: DeviceCheckOperation, _ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let app = try context.appId()
        let client = try clients.client(for: app)
        let call = try DeviceCheckRequest(operation, json: try await JSONBody.read(request))
        let started = ContinuousClock.now
        let outcome = await client.perform(call)
        metrics.deviceCheckCall(
            operation: operation.name, outcome: Self.outcomeLabel(outcome), duration: ContinuousClock.now - started)
        switch outcome {
        case .success(let result):
            return JSONBody.response(Self.answer(result))
        case .failure(.badDeviceToken(let text)) where operation == .validate:
            // Validation is the question whether the token is good: Apple's "no" is its answer.
            return JSONBody.response(.object(["valid": .bool(false), "reason": .string(text)]))
        case .failure(let failure):
            context.logger.notice(
                "DeviceCheck call failed",
                metadata: [
                    "herald.app": "\(app)", "herald.devicecheck.operation": "\(operation.rawValue)",
                    "herald.devicecheck.token": "\(call.tokenPrefix)", "herald.reason": "\(failure)",
                ])
            throw Self.fault(failure)
        }
    }

    /// The metric label of a call's outcome: a small fixed set.
    static func outcomeLabel(_ outcome: Result<DeviceCheckResult, DeviceCheckFailure>) -> String {
        switch outcome {
        case .success: "ok"
        case .failure(.badDeviceToken): "badDeviceToken"
        case .failure(.badRequest): "badRequest"
        case .failure(.credentialsRefused): "credentialsRefused"
        case .failure(.unavailable): "unavailable"
        case .failure(.client): "client"
        }
    }

    static func answer(_ result: DeviceCheckResult) -> JSONValue {
        switch result {
        case .valid: .object(["valid": .bool(true)])
        case .bits(let bit0, let bit1, let month):
            .object(["bitsSet": .bool(true), "bit0": .bool(bit0), "bit1": .bool(bit1), "lastUpdateTime": .string(month)])
        case .noBits: .object(["bitsSet": .bool(false)])
        case .updated: .object(["result": .bool(true)])
        }
    }

    static func fault(_ failure: DeviceCheckFailure) -> HeraldFault {
        switch failure {
        case .badDeviceToken(let text): .deviceCheckBadToken(text)
        case .badRequest(let text): .deviceCheckRefused(text)
        case .credentialsRefused: .deviceCheckCredentialsRefused
        case .unavailable(let text), .client(let text): .deviceCheckUnavailable(text)
        }
    }
}
