import HeraldCore
import HeraldStore
import Hummingbird
import Logging
import NIOCore

/// Turns every failure into Backendless's `{"code","message"}` body. Internal errors are logged
/// here and answered with a message that carries no details.
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let fault as HeraldFault {
            return Self.response(fault)
        } catch let error as StoreUnavailable {
            context.logger.warning("database unavailable", metadata: ["herald.error": "\(error.reason)"])
            return Self.response(.storeUnavailable)
        } catch is NIOTooManyBytesError {
            return Self.response(.bodyTooLarge(limit: Limits.requestBodyBytes))
        } catch let error as HTTPError where error.status == .notFound {
            return Self.response(.noSuchRoute)
        } catch let error as HTTPError where error.status == .methodNotAllowed {
            return Self.response(
                HeraldFault(code: 405, kind: .validation, message: "Method not allowed on this route"), status: .methodNotAllowed)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            // Hummingbird's own 4xx (a malformed request, a body cut short): the client's problem, not ours.
            let fault = HeraldFault(code: error.status.code, kind: .validation, message: error.status.reasonPhrase)
            return Self.response(fault, status: error.status)
        } catch {
            context.logger.error(
                "request failed", metadata: ["herald.error": "\(String(reflecting: type(of: error)))", "herald.detail": "\(error)"])
            return Self.response(.internalError)
        }
    }

    static func response(_ fault: HeraldFault, status: HTTPResponse.Status? = nil) -> Response {
        JSONBody.response(
            .object(["code": .integer(Int64(fault.code)), "message": .string(fault.message)]),
            status: status ?? Self.status(of: fault.kind))
    }

    static func status(of kind: HeraldFault.Kind) -> HTTPResponse.Status {
        switch kind {
        case .validation: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .tooLarge: .contentTooLarge
        case .rateLimited: .tooManyRequests
        case .badGateway: .badGateway
        case .unavailable: .serviceUnavailable
        case .internal: .internalServerError
        }
    }
}
