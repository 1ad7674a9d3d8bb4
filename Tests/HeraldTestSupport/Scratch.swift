import Foundation

/// A scratch directory for one test, removed when the test ends.
public struct Scratch {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func write(_ name: String, _ contents: String) throws -> String {
        try contents.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
