import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Herald's HTTP API as any client sees it, over Foundation's URLSession (so the demo adds no package).
/// `connections` keep-alive connections carry the concurrent requests.
struct DemoHTTP: Sendable {
    let base: URL
    private let session: URLSession

    init(base: URL, connections: Int) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.timeoutIntervalForRequest = 20
        session = URLSession(configuration: configuration)
    }

    /// Sends one request; returns the status and the body.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Sends one request that must answer 200, and decodes its body.
    func call<Answer: Decodable>(_ method: String, _ path: String, json: [String: Any]? = nil,
                                 as type: Answer.Type) async throws -> Answer {
        let (status, body) = try await send(method, path, json: json)
        guard status == 200 else {
            throw DemoError("\(method) \(path) answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw DemoError("\(method) \(path) answered an unexpected body: \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
    }

    func close() { session.finishTasksAndInvalidate() }
}
