import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `herald probe URL`: a health check for places with no curl (the container image's HEALTHCHECK):
/// exit 0 when the URL answers 2xx within the timeout, 1 otherwise, with one line saying why.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "GET a URL (say http://127.0.0.1:8080/health); exit 0 on a 2xx answer, 1 otherwise.")

    @Argument(help: "The URL to GET.")
    var url: String = "http://127.0.0.1:8080/health"

    @Option(name: .long, help: "Seconds to wait for the answer.")
    var timeout: Double = 2

    func run() async throws {
        guard let target = URL(string: url), let scheme = target.scheme, ["http", "https"].contains(scheme), target.host != nil
        else {
            FileHandle.standardError.write(Data("herald probe: '\(url)' is not an http(s) URL\n".utf8))
            throw ExitCode.failure
        }
        // A health check asks this machine's Herald directly: a proxy from the environment (which libcurl,
        // under URLSession, would otherwise use) must not answer for it.
        for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] { unsetenv(name) }
        var request = URLRequest(url: target, timeoutInterval: max(0.1, timeout))
        request.httpMethod = "GET"
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = max(0.1, timeout)
        let session = URLSession(configuration: configuration)
        let outcome: Result<Int, any Error> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(returning: .failure(error))
                } else {
                    continuation.resume(returning: .success((response as? HTTPURLResponse)?.statusCode ?? 0))
                }
            }.resume()
        }
        switch outcome {
        case .success(let status) where (200..<300).contains(status):
            print("\(url): \(status)")
        case .success(let status):
            FileHandle.standardError.write(Data("herald probe: \(url) answered \(status)\n".utf8))
            throw ExitCode.failure
        case .failure(let error):
            FileHandle.standardError.write(Data("herald probe: \(url): \(error.localizedDescription)\n".utf8))
            throw ExitCode.failure
        }
    }
}
