import Foundation
import HeraldCurl

extension FCMAccessToken {
    /// Reads the token endpoint's answer: the access token and its lifetime, or why there is none.
    /// A refusal (4xx) is a credentials failure carrying Google's `error_description`; 429 and 5xx
    /// are worth another try later.
    static func grant(
        from answer: Result<CurlTransfer.Response, CurlTransfer.Failure>, account: FCMServiceAccount
    ) -> Result<(token: String, expiresIn: Int64), FCMTransportError> {
        let response: CurlTransfer.Response
        switch answer {
        case .failure(let failure):
            return .failure(
                FCMTransportError(
                    curlCode: failure.code, message: "cannot reach the token endpoint \(account.tokenURI): \(failure.message)"))
        case .success(let answer):
            response = answer
        }
        guard response.status == 200 else {
            let error = try? JSONDecoder().decode(ErrorAnswer.self, from: Data(response.body))
            let words = [error?.error, error?.errorDescription].compactMap { $0 }.joined(separator: ": ")
            let detail = words.isEmpty ? "" : ": \(words.prefix(300))"
            if response.status == 429 || response.status >= 500 {
                return .failure(
                    FCMTransportError(
                        kind: .tokenUnavailable, curlCode: 0,
                        message: "the token endpoint \(account.tokenURI) answered \(response.status)\(detail)"))
            }
            return .failure(
                FCMTransportError(
                    kind: .credentials, curlCode: 0,
                    message: "the token endpoint refused \(account.clientEmail) (HTTP \(response.status))\(detail)"))
        }
        guard let grant = try? JSONDecoder().decode(GrantAnswer.self, from: Data(response.body)), !grant.accessToken.isEmpty else {
            return .failure(
                FCMTransportError(kind: .credentials, curlCode: 0, message: "the token endpoint's answer has no access_token"))
        }
        if let type = grant.tokenType, type.lowercased() != "bearer" {
            return .failure(
                FCMTransportError(
                    kind: .credentials, curlCode: 0, message: "the token endpoint gave a '\(type.prefix(20))' token, not Bearer"))
        }
        let expiresIn = grant.expiresIn ?? 3600
        guard expiresIn > 0 else {
            return .failure(
                FCMTransportError(
                    kind: .credentials, curlCode: 0, message: "the token endpoint gave a token that expires in \(expiresIn) s"))
        }
        return .success((grant.accessToken, expiresIn))
    }

    private struct GrantAnswer: Decodable {
        var accessToken: String
        var expiresIn: Int64?
        var tokenType: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    private struct ErrorAnswer: Decodable {
        var error: String?
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }
}
