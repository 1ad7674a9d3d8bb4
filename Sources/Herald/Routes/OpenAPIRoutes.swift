import Hummingbird

/// `GET /openapi.json`: the API's OpenAPI 3.1 document, `Sources/Herald/OpenAPI/openapi.json` compiled
/// into the binary (SwiftPM `embedInCode`), so the contract served is the one in the repository.
/// No key: it describes the API, not any app's data.
struct OpenAPIRoutes {
    static let document = ByteBuffer(bytes: PackageResources.openapi_json)

    func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: Self.document))
        }
    }
}
