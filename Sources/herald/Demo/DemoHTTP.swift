import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Herald's HTTP API as any client sees it, over Foundation's URLSession (so the demo adds no package).
/// `connections` keep-alive connections carry the concurrent requests.
struct DemoHTTP: Sendable {
    let base: URL
    /// API keys and the placeholder that stands for each in error messages: keys are never printed.
    let placeholders: [String: String]
    private let session: URLSession

    init(base: URL, connections: Int, placeholders: [String: String]) {
        self.base = base
        self.placeholders = placeholders
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.timeoutIntervalForRequest = 20
        session = URLSession(configuration: configuration)
    }

    /// Sends one request; returns the status and the body.
    ///
    /// Through a completion handler rather than `data(for:)`: on Linux, cancelling a task group whose
    /// children await `data(for:)` can deadlock (the cancel handler waits on the session's queue while
    /// that queue waits to resume the child), which is how a first failed registration hung the demo.
    /// Here cancellation does not reach the request; the request timeout bounds it instead.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let shown = "\(method) /\(redacted(path))"
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: DemoError("\(shown): \(error.localizedDescription)"))
                } else {
                    continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
                }
            }.resume()
        }
    }

    /// Sends one request that must answer 200, and decodes its body.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, json: [String: Any]? = nil,
        as type: Answer.Type
    ) async throws -> Answer {
        let (status, body) = try await send(method, path, json: json)
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        guard status == 200 else { throw DemoError("\(method) /\(redacted(path)) answered \(status): \(text)") }
        do {
            return try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw DemoError("\(method) /\(redacted(path)) answered an unexpected body: \(text)")
        }
    }

    /// `path` with every API key replaced by its placeholder.
    func redacted(_ path: String) -> String {
        placeholders.reduce(path) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    func close() { session.finishTasksAndInvalidate() }
}
