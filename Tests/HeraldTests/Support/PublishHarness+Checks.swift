import APNsMock
import Foundation
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Reads and waits that the publishing tests share: a device as an app sees it, a message's status
/// until a condition holds, and "nothing more happens" checks.
extension PublishHarness.Harness {
    /// `GET …/messaging/registrations/{deviceId}` with the client key, as an app reads its own registration.
    func registration(_ deviceId: String) async throws -> (status: HTTPResponse.Status, body: JSONValue) {
        let answer = try await client.call(.get, PublishHarness.register + "/" + deviceId)
        return (answer.status, answer.body)
    }

    /// The first (only) registration object of a device's GET answer.
    func device(_ deviceId: String) async throws -> JSONValue {
        let answer = try await registration(deviceId)
        guard answer.status == .ok, let device = answer.body[0] else {
            throw HarnessError("GET registration of \(deviceId) answered \(answer.status): \(answer.body)")
        }
        return device
    }

    /// Polls the message until `condition` holds for its status answer (20 s at most) and returns that answer.
    @discardableResult
    func waitFor(
        _ id: String, timeout: Duration = .seconds(20), _ what: String,
        until condition: @Sendable (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let answer = try await status(id)
            if condition(answer) { return answer }
            if ContinuousClock.now > deadline { throw HarnessError("message \(id) never got to \(what): \(answer)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Watches the mock for `duration` and fails if it receives any request beyond `requests`.
    /// Used where the point is that nothing is sent: a short window, not a measurement.
    func expectNoMoreRequests(
        than requests: Int, for duration: Duration = .milliseconds(400),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let seen = mock.stats().requests
            if seen > requests {
                Issue.record("the mock received \(seen) requests, expected \(requests)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Publishes with the raw answer, for tests of refusals.
    func post(_ channel: String, _ body: String, key: String = "k-server") async throws
        -> (status: HTTPResponse.Status, body: JSONValue)
    {
        let answer = try await client.call(.post, "/shop/\(key)/messaging/\(channel)", json: body)
        return (answer.status, answer.body)
    }
}

extension JSONValue {
    /// `occurrences` of a status answer.
    var occurrences: Int64? {
        if case .integer(let value)? = self["occurrences"] { return value }
        return nil
    }

    /// `status` of a status answer.
    var messageStatus: String? {
        if case .string(let value)? = self["status"] { return value }
        return nil
    }

    /// `message` of a fault answer.
    var faultMessage: String? {
        if case .string(let value)? = self["message"] { return value }
        return nil
    }
}
