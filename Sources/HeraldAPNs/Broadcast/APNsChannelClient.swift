import Foundation
import HeraldCurl
import HeraldSigning

/// Apple's broadcast-channel management (iOS 18 Live Activities): create, read, delete and list the
/// channels of a bundle id on the management host. A channel is made per event and deleted after it, so
/// this is a few requests, not a fan-out: each is one `CurlTransfer` (HeraldCurl's easy interface, as
/// the webhook sender uses), HTTP/2 over TLS, signed with the provider token that the push client can
/// share (`APNsProviderToken`, HeraldSigning). Token auth only: Apple does not take certificates here.
public final class APNsChannelClient: Sendable {
    public let configuration: APNsChannelClientConfiguration
    public let providerToken: APNsProviderToken

    /// `providerToken`: pass the push client's to share one cached token per key.
    public init(configuration: APNsChannelClientConfiguration, providerToken: APNsProviderToken) {
        self.configuration = configuration
        self.providerToken = providerToken
    }

    /// Makes a channel; Apple picks its id (base64, of no fixed size). Any 2xx with `apns-channel-id`
    /// is success (Apple documents 201).
    public func create(
        bundleID: String, storagePolicy: APNsChannelStoragePolicy, requestID: String? = nil
    ) async throws(APNsChannelError) -> String {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        let response = try await perform("POST", Self.channelsPath(bundleID), body: body, requestID: requestID)
        guard let id = response.headers["apns-channel-id"], !id.isEmpty else {
            throw APNsChannelError.unexpectedAnswer(status: response.status, detail: "no apns-channel-id header")
        }
        return id
    }

    /// The storage policy of an existing channel.
    public func read(bundleID: String, channelID: String, requestID: String? = nil) async throws(APNsChannelError)
        -> APNsChannelStoragePolicy
    {
        let response = try await perform("GET", Self.channelsPath(bundleID), channelID: channelID, requestID: requestID)
        guard let body = try? JSONDecoder().decode(ReadBody.self, from: Data(response.body)),
            let policy = APNsChannelStoragePolicy(rawValue: body.policy)
        else { throw APNsChannelError.unexpectedAnswer(status: response.status, detail: "not a channel's settings") }
        return policy
    }

    /// Deletes a channel; its id is never issued again, and messages already stored may still arrive.
    public func delete(bundleID: String, channelID: String, requestID: String? = nil) async throws(APNsChannelError) {
        _ = try await perform("DELETE", Self.channelsPath(bundleID), channelID: channelID, requestID: requestID)
    }

    /// Every channel id of the bundle in this environment.
    public func list(bundleID: String, requestID: String? = nil) async throws(APNsChannelError) -> [String] {
        let response = try await perform("GET", "/1/apps/\(bundleID)/all-channels", requestID: requestID)
        guard let body = try? JSONDecoder().decode(ListBody.self, from: Data(response.body)) else {
            throw APNsChannelError.unexpectedAnswer(status: response.status, detail: "not a list of channels")
        }
        return body.channels
    }

    static func channelsPath(_ bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }

    private struct ReadBody: Decodable {
        var policy: Int
        enum CodingKeys: String, CodingKey { case policy = "message-storage-policy" }
    }

    private struct ListBody: Decodable {
        var channels: [String]
    }

    /// One request, and once more with a new token if APNs says the token expired; a 2xx is returned,
    /// anything else thrown.
    private func perform(
        _ method: String, _ path: String, body: String? = nil, channelID: String? = nil, requestID: String?
    ) async throws(APNsChannelError) -> CurlTransfer.Response {
        for attempt in 1...2 {
            let issued: APNsProviderToken.Issued
            do {
                issued = try providerToken.token()
            } catch {
                throw APNsChannelError.failed(
                    APNsTransportError(kind: .credentials, curlCode: 0, message: "cannot sign the provider token: \(error)"))
            }
            var headers = [issued.headerLine, "Accept:", "Expect:"]
            if let channelID { headers.append("apns-channel-id: \(channelID)") }
            if let requestID { headers.append("apns-request-id: \(requestID)") }
            if body != nil { headers.append("content-type: application/json") }
            let transfer = CurlTransfer(
                method: method, url: configuration.baseURL + path, headers: headers, body: body.map { Array($0.utf8) },
                timeoutMilliseconds: CurlOptions.milliseconds(configuration.requestTimeout),
                connectTimeoutMilliseconds: CurlOptions.milliseconds(configuration.connectTimeout), caFile: configuration.caFile,
                capturedHeaders: ["apns-channel-id", "apns-request-id"], maxResponseBytes: 4 << 20)
            let response: CurlTransfer.Response
            switch await transfer.perform() {
            case .success(let answer): response = answer
            case .failure(let failure):
                throw APNsChannelError.failed(
                    APNsTransportError(kind: .init(curlCode: failure.code), curlCode: failure.code, message: failure.message))
            }
            if (200..<300).contains(response.status) { return response }
            let reason = APNsBroadcastReason.inErrorBody(response.body)
            if attempt == 1, reason == .known(.expiredProviderToken) {
                providerToken.expire(issued)
                continue
            }
            guard let reason else { throw APNsChannelError.unexpectedAnswer(status: response.status, detail: "an error without a reason") }
            throw APNsChannelError.rejected(status: response.status, reason: reason, requestID: response.headers["apns-request-id"])
        }
        throw APNsChannelError.unexpectedAnswer(status: 403, detail: "the provider token expired twice")
    }
}
