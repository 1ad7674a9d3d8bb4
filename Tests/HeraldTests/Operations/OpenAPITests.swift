import Foundation
import HeraldCore
import HeraldMetrics
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import Herald

/// The OpenAPI document (issue 11) is served at `/openapi.json` and names exactly the routes the router
/// serves: a route added without its documentation, or documentation left for a route that is gone,
/// fails here. (schemathesis, in CI, checks the answers against it.)
@Suite struct OpenAPITests {
    @Test func theDocumentNamesEveryRouteAndNoOther() async throws {
        let served = try await Self.routes()
        let document = try Self.document()
        let documented = try Self.operations(document)
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(!served.isEmpty)
    }

    @Test func theDocumentIsServedAsIsWithoutAKey() async throws {
        try await TestHerald.with { h in
            let answer = try await h.client.execute(uri: "/openapi.json", method: .get) { $0 }
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(Array(answer.body.readableBytesView) == PackageResources.openapi_json)
            let document = try JSONValue.parse(Array(answer.body.readableBytesView))
            #expect(document["openapi"] == .string("3.1.0"))
            #expect(document["info"]?["version"] == .string(HeraldVersion.current))
        }
    }

    @Test func everyErrorAnswerIsTheBackendlessShape() throws {
        // Each documented 4xx/5xx answer's JSON schema is the shared {code, message} error.
        let document = try Self.document()
        guard case .object(let paths)? = document["paths"] else {
            Issue.record("no paths")
            return
        }
        for (path, item) in paths {
            guard case .object(let operations) = item else { continue }
            for (method, operation) in operations where Self.methods.contains(method) {
                guard case .object(let responses)? = operation["responses"] else {
                    Issue.record("\(method) \(path) has no responses")
                    continue
                }
                for (status, response) in responses where status.hasPrefix("4") || status.hasPrefix("5") {
                    let response = try Self.resolve(response, in: document)
                    // The shared Error, alone or narrowed to the codes this answer can carry (allOf).
                    let schema = response["content"]?["application/json"]?["schema"]
                    let error = JSONValue.string("#/components/schemas/Error")
                    #expect(
                        schema?["$ref"] == error || schema?["allOf"]?[0]?["$ref"] == error,
                        "\(method) \(path) \(status): \(String(describing: schema))")
                }
            }
        }
    }

    /// The routes that create a message take `Idempotency-Key` (issue 52): each documents the header, its
    /// 422 (code 5090), and the `Idempotent-Replayed` header of a retry's answer.
    @Test func theRoutesThatCreateAMessageDocumentTheIdempotencyKey() throws {
        let document = try Self.document()
        let reference = JSONValue.string("#/components/parameters/idempotencyKey")
        let parameter = try Self.resolve(.object(["$ref": reference]), in: document)
        #expect(parameter["name"] == .string("Idempotency-Key") && parameter["in"] == .string("header"))
        #expect(parameter["required"] == .bool(false))
        #expect(parameter["schema"]?["maxLength"] == .integer(Int64(IdempotencyKey.limit)))
        for path in ["/{appId}/{apiKey}/messaging/{target}", "/{appId}/{apiKey}/messaging/{target}/{second}"] {
            let operation = try #require(document["paths"]?[path]?["post"], "\(path)")
            guard case .array(let parameters)? = operation["parameters"] else {
                Issue.record("POST \(path) has no parameters")
                continue
            }
            #expect(parameters.contains { $0["$ref"] == reference }, "POST \(path) does not name the header")
            let reused = try Self.resolve(try #require(operation["responses"]?["422"], "POST \(path) has no 422"), in: document)
            let codes = reused["content"]?["application/json"]?["schema"]?["allOf"]?[1]?["properties"]?["code"]?["enum"]
            #expect(codes == .array([.integer(5090)]), "POST \(path)")
            #expect(operation["responses"]?["200"]?["headers"]?["Idempotent-Replayed"] != nil, "POST \(path)")
        }
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]

    static func document() throws -> JSONValue { try JSONValue.parse(PackageResources.openapi_json) }

    /// `METHOD /path` for every operation of the document.
    static func operations(_ document: JSONValue) throws -> Set<String> {
        guard case .object(let paths)? = document["paths"] else { throw HarnessError("no paths in the document") }
        var operations: Set<String> = []
        for (path, item) in paths {
            guard case .object(let members) = item else { continue }
            for method in members.keys where methods.contains(method) { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    /// `METHOD /path` for every route of the server's router, /metrics included.
    static func routes() async throws -> Set<String> {
        let logger = Logger(label: "herald.tests")
        return try await HeraldRuntime.withMigrated(.sqliteMemory, logger: logger) { backend in
            let store = SQLRegistrationStore(backend: backend)
            let clock = ManualClock(TestHerald.t0)
            let registry = SQLDeviceRegistry(backend: backend)
            let messages = SQLMessageStore(backend: backend)
            let router = HeraldServer.makeRouter(
                store: store, messages: messages, registry: registry, templates: SQLPushTemplateStore(backend: backend),
                pubsub: PubSubRoutes(
                    store: SQLPubSubStore(backend: backend), hub: nil, apps: try AppDirectory(apps: TestHerald.apps), clock: clock,
                    configuration: PubSubConfiguration(), metrics: .disabled),
                apps: try AppDirectory(apps: TestHerald.apps), clock: clock,
                sweeper: Sweeper(store: store, clock: clock, batchSize: 100, logger: logger), dispatcher: nil,
                readiness: Readiness(backend: backend), metrics: .disabled,
                metricsRoute: MetricsRoutes(exporter: MetricsExporter(), bearerToken: nil),
                deviceCheck: DeviceCheckClients(apps: TestHerald.apps, clock: clock, logger: logger),
                broadcastChannels: BroadcastChannelStore(backend: backend))
            return Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
        }
    }

    /// A response object, or the one its `$ref` points to.
    static func resolve(_ value: JSONValue, in document: JSONValue) throws -> JSONValue {
        guard case .string(let reference)? = value["$ref"] else { return value }
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        guard let node else { throw HarnessError("unresolved \(reference)") }
        return node
    }
}
