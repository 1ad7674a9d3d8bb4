import HeraldCore
import HeraldStore
import Hummingbird
import Logging
import NIOCore

/// Turns every failure into Backendless's `{"code","message"}` body. Internal errors are logged
/// here and answered with a message that carries no details.
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The methods each path has routes for: a known path asked with another method answers 405.
    var routeMethods = RouteMethods()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let fault as HeraldFault where fault.kind == .tooLarge {
            // The rest of the body is not read: close after the answer rather than wait for it.
            var response = Self.response(fault)
            response.headers[.connection] = "close"
            return response
        } catch let fault as HeraldFault {
            return Self.response(fault)
        } catch let error as WriteQueueFull {
            // Backpressure, not an outage: the database is there but behind. Nothing of the request was written.
            var response = Self.response(
                HeraldFault(
                    code: 503, kind: .unavailable,
                    message: "Service busy: \(error.waiting) writes are waiting for the database; retry after a second"))
            response.headers[.retryAfter] = "1"
            return response
        } catch let error as StoreUnavailable {
            context.logger.warning("database unavailable", metadata: ["herald.error": "\(error.reason)"])
            // Restarts and failovers last seconds: a client may try again after one.
            var response = Self.response(.storeUnavailable)
            response.headers[.retryAfter] = "1"
            return response
        } catch is NIOTooManyBytesError {
            var response = Self.response(.bodyTooLarge(limit: Limits.requestBodyBytes))
            response.headers[.connection] = "close"
            return response
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routeMethods.allowed(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else { return Self.response(.noSuchRoute) }
            return Self.methodNotAllowed(request.method, allowed: allowed)
        } catch let error as HTTPError where error.status == .methodNotAllowed {
            return Self.methodNotAllowed(request.method, allowed: routeMethods.allowed(for: request.uri.path))
        } catch let error as ProtocolFaultError {
            // The body could not be read as HTTP (ProtocolErrorHandler counted and logged it).
            return Self.response(error.fault.fault, status: error.fault.status)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            // Hummingbird's own 4xx (a malformed request, a body cut short): the client's problem, not ours.
            let fault = HeraldFault(code: error.status.code, kind: .validation, message: error.status.reasonPhrase)
            return Self.response(fault, status: error.status)
        } catch {
            context.logger.error(
                "request failed",
                metadata: [
                    "herald.error": "\(String(reflecting: type(of: error)))",
                    "herald.detail": "\(String(describing: error).prefix(200))",
                ])
            return Self.response(.internalError)
        }
    }

    /// 405 naming the methods the path has, in `Allow` as HTTP asks.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> Response {
        let names = allowed.map(\.rawValue).joined(separator: ", ")
        var response = Self.response(
            HeraldFault(
                code: 405, kind: .validation,
                message: "method \(method.rawValue.prefix(20)) is not allowed on this route" + (names.isEmpty ? "" : "; it allows \(names)")
            ),
            status: .methodNotAllowed)
        if !names.isEmpty { response.headers[.allow] = names }
        return response
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
        case .unprocessable: .unprocessableContent
        case .badGateway: .badGateway
        case .unavailable: .serviceUnavailable
        case .internal: .internalServerError
        }
    }
}
