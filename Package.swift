// swift-tools-version: 6.2
import PackageDescription

// Every target: `any` spelled out for existentials, and a module's members usable only where that module
// is imported (so each target's dependencies below list every module it imports). With
// HERALD_WARNINGS_AS_ERRORS set (`.ci/run` sets it), a warning in Herald's own code fails the build;
// dependencies' warnings are not affected.
let strict: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
    + (Context.environment["HERALD_WARNINGS_AS_ERRORS"].map { !$0.isEmpty && $0 != "0" } == true
        ? [.treatAllWarnings(as: .error)] : [])

// What the provider mocks under fixtures/ import besides MockServerKit.
let mockDependencies: [Target.Dependency] = [
    "MockServerKit",
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOHPACK", package: "swift-nio-http2"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
]

let package = Package(
    name: "herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-bench", targets: ["herald-bench"]),
        .executable(name: "apns-mock", targets: ["apns-mock"]),
        .executable(name: "fcm-mock", targets: ["fcm-mock"]),
        .executable(name: "devicecheck-mock", targets: ["devicecheck-mock"]),
        .executable(name: "webpush-mock", targets: ["webpush-mock"]),
        .library(name: "Herald", targets: ["Herald"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        .target(
            name: "HeraldCore",
            // DequeModule: InFlightLimit's waiters (the send window every provider and the dispatcher share).
            dependencies: [.product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        // Herald's metrics, named and labelled in one place, on any swift-metrics factory (Prometheus in the server).
        .target(
            name: "HeraldMetrics",
            dependencies: [
                "HeraldCore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // Backup/ also imports VaporCSQLite, the SQLite that SQLiteNIO compiles in, for the online backup API
        // (`herald backup`) that SQLiteNIO does not wrap. sqlite-nio offers it as a target, not a product, so it
        // cannot be listed here; it is visible through SQLiteKit → SQLiteNIO. The same copy of SQLite, not the
        // system's libsqlite3: two SQLite libraries in one process that open one file drop each other's locks.
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldCore",
                "HeraldMetrics",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // libcurl with typed C shims for its variadic calls; HeraldCurl and HeraldWebhooks import it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The provider-neutral HTTP/2 client layer on libcurl: one multi handle on its own thread, pooled
        // easy handles, corked sockets, shared request bodies and header lists, the in-flight window.
        .target(
            name: "HeraldCurl",
            dependencies: [
                "CCurl",
                "HeraldCore",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // Apple's ES256 token auth: the .p8 key and the cached bearer token that APNs and DeviceCheck share.
        .target(
            name: "HeraldSigning",
            dependencies: ["HeraldCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "HeraldAPNs",
            dependencies: [
                "HeraldSigning",
                "HeraldCurl",
                "HeraldCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The Web Push client (browsers): RFC 8291 payload encryption, RFC 8292 VAPID tokens on
        // HeraldSigning's one JWT writer, sends to each subscription's push service on the shared curl layer.
        .target(
            name: "HeraldWebPush",
            dependencies: [
                "HeraldSigning",
                "HeraldCurl",
                "HeraldCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The FCM HTTP v1 client (Android): service-account OAuth tokens (RS256), sends on the shared
        // curl layer, FCM's answers as typed outcomes and their retry policy.
        .target(
            name: "HeraldFCM",
            dependencies: [
                "HeraldCurl",
                "HeraldCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Apple DeviceCheck (two bits per device) for an app's backend: on the shared curl layer, with
        // the bearer token signed as APNs's provider token is (HeraldAPNs' key and token cache).
        .target(
            name: "HeraldDeviceCheck",
            dependencies: [
                "HeraldSigning",
                "HeraldCurl",
                "HeraldCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Webhook events out, all of their delivery: WebhookService (claims the store's outbox, posts,
        // retries), signing, retry policy, targets and a libcurl easy-handle sender.
        .target(
            name: "HeraldWebhooks",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldCurl",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // What every provider mock shares: listeners and TLS, the HTTP/2 (and HTTP/1.1) connection
        // handlers that ask a per-connection delegate what to answer, the control port, fast ids.
        .target(
            name: "MockServerKit",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "fixtures/mock-kit/Sources/MockServerKit",
            swiftSettings: strict
        ),
        // The command-line half the mock executables share: common options and the process's life.
        .target(
            name: "MockServerCommand",
            dependencies: [
                "MockServerKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "fixtures/mock-kit/Sources/MockServerCommand",
            swiftSettings: strict
        ),
        // The mock APNs server: a test fixture, usable in-process and as the `apns-mock` executable.
        .target(
            name: "APNsMock",
            dependencies: mockDependencies + [.product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "fixtures/apns-mock/Sources/APNsMock",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "apns-mock",
            dependencies: [
                "APNsMock",
                "MockServerKit",
                "MockServerCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "fixtures/apns-mock/Sources/apns-mock",
            swiftSettings: strict
        ),
        // A long command's progress on standard output (rewritten in place on a terminal, a line a step in a
        // log), with no dependency: `herald` (migrate, backup) and `herald-bench` (populate) draw theirs with it.
        .target(
            name: "HeraldTerminal",
            swiftSettings: strict
        ),
        // The console's charts as SVG text (bars over time, a sparkline, a timeline): numbers in, markup out, with
        // no dependency at all, so they are tested on their own and no chart library or script is needed.
        .target(
            name: "HeraldCharts",
            swiftSettings: strict
        ),
        // AMF0 and AMF3 (Flash remoting): the wire of the Backendless Java/Android SDK's `/binary` calls, with
        // no dependency at all (the Backendless services above it live in Herald's AMF folder).
        .target(
            name: "HeraldAMF",
            swiftSettings: strict
        ),
        // Engine.IO (v3, v4) and Socket.IO (v4, v5) on Hummingbird: the wire of Backendless RT, with no
        // Herald dependency (the Backendless events above it live in Herald's RT folder).
        .target(
            name: "HeraldSocketIO",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The dispatch engine: dispatcher, fan-out, progress and the provider seam, without the HTTP server.
        .target(
            name: "HeraldDispatch",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldMetrics",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The mock FCM HTTP v1 server (OAuth2 token endpoint and messages:send), like the APNs mock.
        .target(
            name: "FCMMock",
            dependencies: mockDependencies + [
                "HeraldCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "fixtures/fcm-mock/Sources/FCMMock",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fcm-mock",
            dependencies: [
                "FCMMock",
                "MockServerKit",
                "MockServerCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "fixtures/fcm-mock/Sources/fcm-mock",
            swiftSettings: strict
        ),
        // The mock Apple DeviceCheck server (validate_device_token, query_two_bits, update_two_bits).
        .target(
            name: "DeviceCheckMock",
            dependencies: mockDependencies + ["HeraldCore", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "fixtures/devicecheck-mock/Sources/DeviceCheckMock",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "devicecheck-mock",
            dependencies: [
                "DeviceCheckMock",
                "MockServerKit",
                "MockServerCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "fixtures/devicecheck-mock/Sources/devicecheck-mock",
            swiftSettings: strict
        ),
        // The mock Web Push service (RFC 8030 push endpoint, RFC 8292 VAPID, RFC 8291 decryption).
        .target(
            name: "WebPushMock",
            dependencies: mockDependencies + [
                "HeraldCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "fixtures/webpush-mock/Sources/WebPushMock",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "webpush-mock",
            dependencies: [
                "WebPushMock",
                "MockServerKit",
                "MockServerCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "fixtures/webpush-mock/Sources/webpush-mock",
            swiftSettings: strict
        ),
        .target(
            name: "Herald",
            dependencies: [
                .product(name: "NIOPosix", package: "swift-nio"),
                "HeraldCore",
                "HeraldStore",
                "HeraldAPNs",
                "HeraldFCM",
                "HeraldWebPush",
                "HeraldDeviceCheck",
                "HeraldDispatch",
                "HeraldWebhooks",
                "HeraldMetrics",
                "HeraldSocketIO",
                "HeraldAMF",
                "HeraldCharts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // The WebSocket form of a subscription's stream.
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SQLKit", package: "sql-kit"),
                // SHA-256 of the console's session tokens.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The OpenAPI document, compiled in and served at GET /openapi.json; the console's stylesheet and
            // script, served at /console/assets/.
            resources: [
                .embedInCode("OpenAPI/openapi.json"), .embedInCode("Console/Assets/console.css"),
                .embedInCode("Console/Assets/console.js"), .embedInCode("Console/Assets/favicon.svg"),
                .embedInCode("Console/Assets/webpush-sw.js"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldCore",
                "HeraldCurl",
                "HeraldAPNs",
                "HeraldFCM",
                "HeraldWebPush",
                "HeraldStore",
                "HeraldTerminal",
                .product(name: "Logging", package: "swift-log"),
                "Herald",
                "APNsMock",
                "FCMMock",
                "WebPushMock",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                "Herald",
                "APNsMock",
                "FCMMock",
                "WebPushMock",
                "HeraldCore",
                "HeraldStore",
                "HeraldAPNs",
                "HeraldSigning",
                "HeraldFCM",
                "HeraldWebPush",
                "HeraldDeviceCheck",
                "HeraldCurl",
                "HeraldTerminal",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // Helpers that several test targets share (a throwaway PostgreSQL database per test).
        .target(
            name: "HeraldTestSupport",
            dependencies: [
                "HeraldCurl",
                "HeraldCore",
                "HeraldStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HeraldTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldTerminalTests",
            dependencies: ["HeraldTerminal"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldAMFTests",
            dependencies: ["HeraldAMF"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldChartsTests",
            dependencies: ["HeraldCharts"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldSocketIOTests",
            dependencies: [
                "HeraldSocketIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore",
                "HeraldCore",
                "HeraldTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FCMMockTests",
            dependencies: [
                "FCMMock", "HeraldCurl", "HeraldCore", "HeraldTestSupport",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DeviceCheckMockTests",
            dependencies: [
                "DeviceCheckMock", "HeraldCurl", "HeraldCore", "HeraldTestSupport", "HeraldAPNs", "HeraldSigning",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebPushMockTests",
            dependencies: [
                "WebPushMock", "HeraldCurl", "HeraldCore", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldAPNsTests",
            dependencies: [
                "HeraldTestSupport",
                "HeraldAPNs",
                "HeraldSigning",
                "HeraldCurl",
                "HeraldCore",
                "APNsMock",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldDispatchTests",
            dependencies: [
                "HeraldDispatch",
                "HeraldCore",
                "HeraldStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldDeviceCheckTests",
            dependencies: [
                "HeraldDeviceCheck",
                "HeraldCore",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldFCMTests",
            dependencies: [
                "HeraldFCM",
                "HeraldCurl",
                "HeraldCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldWebPushTests",
            dependencies: ["HeraldWebPush", "HeraldCore", "HeraldCurl", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HeraldTests",
            dependencies: [
                "HeraldAMF",
                "HeraldCore",
                "HeraldDispatch",
                "HeraldFCM",
                "HeraldStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                "Herald",
                "HeraldAPNs",
                "HeraldWebhooks",
                "HeraldMetrics",
                "APNsMock",
                "FCMMock",
                "WebPushMock",
                "HeraldWebPush",
                "DeviceCheckMock",
                "HeraldDeviceCheck",
                "HeraldTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            swiftSettings: strict
        ),
    ]
)
