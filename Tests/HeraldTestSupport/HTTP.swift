import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A tiny HTTP client for talking to a spawned server.
public enum HTTP {
    public static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForRequest = 20
        return URLSession(configuration: configuration)
    }()

    public static func send(_ method: String, _ url: URL, json: String? = nil, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
