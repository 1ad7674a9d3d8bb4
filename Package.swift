// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-bench", targets: ["herald-bench"]),
        .library(name: "Herald", targets: ["Herald"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "HeraldCore",
            dependencies: []
        ),
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldCore",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Herald",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "Herald",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                "Herald",
                "HeraldCore",
                "HeraldStore",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore"]
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: ["HeraldStore", "HeraldCore"]
        ),
        .testTarget(
            name: "HeraldTests",
            dependencies: [
                "Herald",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
