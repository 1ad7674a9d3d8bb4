import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The herald binary as a child process.
final class BenchServer: @unchecked Sendable {
    // @unchecked: `output` is only touched under `lock`; `process` is set once in init.
    let process = Process()
    private let lock = NSLock()
    private var output = ""

    init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.lock.withLock { self?.output += text }
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    func waitUntilListening() async throws -> URL {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = lock.withLock { output }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Herald listening on ") }),
                let address = line.dropFirst("Herald listening on ".count).split(separator: " ").first,
                let url = URL(string: String(address))
            {
                return url
            }
            guard process.isRunning else { throw ValidationError("herald exited with \(process.terminationStatus)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ValidationError("herald did not start listening")
    }

    private func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }

    func residentKiB() -> Int { status("VmRSS") }

    /// User + system CPU time so far.
    func cpuSeconds() -> Double { ProcessStat(pid: String(pid))?.cpuSeconds ?? 0 }

    func peakKiB() -> Int { status("VmHWM") }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

enum BenchHTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    static func send(_ method: String, _ url: URL, json: String? = nil) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}

/// A process's command name and CPU time so far, from /proc/PID/stat (the name in parentheses; user and
/// system time in fields 14 and 15, in clock ticks of 1/100 s).
struct ProcessStat {
    let command: Substring
    let cpuSeconds: Double

    init?(pid: String) {
        guard pid.allSatisfy(\.isNumber), let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        command = text[text.index(after: open)..<close]
        cpuSeconds = (user + system) / 100
    }
}

/// The whole machine's CPU so far, from /proc/stat's first line: idle (with iowait) and all ticks. Two readings
/// give the cores' worth of CPU everything on the machine used between them (`busyCores(since:)`), which tells
/// a run that kept every core busy from one that waited.
struct MachineCPU {
    let idleTicks: Double
    let totalTicks: Double

    init() {
        let line = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?.split(separator: "\n").first ?? ""
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        idleTicks = ticks.count > 4 ? ticks[3] + ticks[4] : 0
        totalTicks = ticks.reduce(0, +)
    }

    /// Cores' worth of CPU used since `earlier` (0 when /proc/stat cannot be read).
    func busyCores(since earlier: MachineCPU) -> Double {
        let total = totalTicks - earlier.totalTicks
        guard total > 0 else { return 0 }
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        return cores * (1 - (idleTicks - earlier.idleTicks) / total)
    }
}
