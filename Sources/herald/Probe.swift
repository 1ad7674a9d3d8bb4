import ArgumentParser
import Foundation
import HeraldCurl

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
        // A health check asks this machine's Herald directly: a proxy from the environment must not answer
        // for it. libcurl's easy interface, not URLSession: on Linux URLSession's socket teardown can crash
        // in libdispatch on exactly a refused connection, the answer a health check most needs to report.
        let milliseconds = Int(max(0.1, timeout) * 1000)
        let outcome = await CurlTransfer(
            method: "GET", url: url, timeoutMilliseconds: milliseconds, ignoreProxies: true, maxResponseBytes: 0
        ).perform()
        switch outcome {
        case .success(let answer) where (200..<300).contains(answer.status):
            print("\(url): \(answer.status)")
        case .success(let answer):
            FileHandle.standardError.write(Data("herald probe: \(url) answered \(answer.status)\n".utf8))
            throw ExitCode.failure
        case .failure(let failure):
            FileHandle.standardError.write(Data("herald probe: \(url): \(failure.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}
