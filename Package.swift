// swift-tools-version:6.1
import PackageDescription

/// The platforms without Apple's CommonCrypto, where PBKDF2 comes from CryptoExtras.
let withoutCommonCrypto: [Platform] = [.linux, .windows, .android, .wasi, .openbsd]

/// macOS 12 for the apps that link TesseraKit. The server's targets need macOS 15
/// (Synchronization's Mutex, Hummingbird's own floor): whoever builds the server on a Mac
/// sets `TESSERA_SERVER_ON_MACOS=1`. Linux, where the server is built and shipped, checks
/// no floor. (An app that links only TesseraKit never resolves the server's packages.)
let macOSFloor: SupportedPlatform.MacOSVersion = Context.environment["TESSERA_SERVER_ON_MACOS"] == nil ? .v12 : .v15

let package = Package(
    name: "Tessera",
    // iOS 15 and macOS 12 for the apps that link TesseraKit: its sources, and TesseraCore's
    // and TesseraCrypto's, use nothing later outside an availability check (AvailabilityTests).
    platforms: [.macOS(macOSFloor), .iOS(.v15)],
    products: [
        .library(name: "TesseraKit", targets: ["TesseraKit"]),
        // Completion handlers, a step-up delegate, an event stream and a shared instance
        // over TesseraKit, for apps written against the commercial SDKs' call shapes.
        .library(name: "TesseraKitCompat", targets: ["TesseraKitCompat"]),
        .library(name: "TesseraServer", targets: ["TesseraServer"]),
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        // The configuration file (YAML) and the TESSERA_* environment, read as layers.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["YAML"]),
        // Traces exported over OTLP/HTTP (protobuf); the gRPC exporter is not built.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        // The version and commit of the build (`tessera --version`, /metrics, /ready), written
        // from git by the BuildInfo plugin before each build.
        .target(name: "TesseraBuildInfo", plugins: ["BuildInfo"]),
        .plugin(name: "BuildInfo", capability: .buildTool()),
        .target(name: "TesseraCore"),
        // The QR encoder of the login pages, the console and the e-mails: the server's, so
        // that no app linking TesseraKit carries it.
        .target(name: "TesseraQRCode"),
        // The catalogs of words every page, message and prompt is written in (one JSON file
        // per language), carried in the binary, with the language negotiation.
        .target(
            name: "TesseraTexts",
            resources: [.embedInCode("Catalogs/en.json"), .embedInCode("Catalogs/de.json"), .embedInCode("Catalogs/fr.json")]
        ),
        // The admin and device API's OpenAPI document (openapi.yaml), the one definition of
        // the admin API, carried in the binary; the admin API's types and typed client are
        // generated from it at build time (openapi-generator-config.yaml).
        .target(
            name: "TesseraAdminAPI",
            dependencies: [
                "TesseraCore",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.embedInCode("openapi.yaml")],
            // The generator spreads the types over several files, each with the same
            // `package import`s, which Swift 6.3 reports as unused where a file does not need
            // them; the generated files silence that with `@diagnose` from Swift 6.4 on. Until
            // then this module's warnings are off (the hand-written files here are few and
            // small). TesseraKit does not depend on it.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // SQLite's C API from the system (Debian's libsqlite3-dev), which the SQLite store
        // drives directly on a thread of its own; SQLiteKit still writes the SQL.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The connection and its thread over CSQLite, apart from TesseraStore: SQLiteNIO's
        // vendored copy declares the same C types, and the two must not meet in one module.
        .target(
            name: "TesseraSQLite",
            dependencies: ["CSQLite", .product(name: "NIOCore", package: "swift-nio")]
        ),
        .target(
            name: "TesseraCrypto",
            dependencies: [
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                // For PBKDF2 only, where CommonCrypto is not: on Apple platforms the SDK then
                // links neither BoringSSL nor SwiftASN1 (CryptoExtras brings both).
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(platforms: withoutCommonCrypto)),
            ]
        ),
        // The stored records (tenants, services, activations, …), their column wrappers and
        // the store's error: what the domain and the edge name, apart from the queries.
        .target(
            name: "TesseraRecords",
            dependencies: ["TesseraCore", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        .target(
            name: "TesseraStore",
            dependencies: [
                "TesseraCore", "TesseraRecords", "TesseraSQLite", "TesseraBuildInfo",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // WebAuthn's relying-party side: reading authenticator data and COSE keys (RSA
        // among them), registration, assertion, attestation. Apart from TesseraCrypto, which
        // holds CBOR and what an authenticator writes, so that the SDK (an authenticator)
        // links neither X.509 nor RSA.
        .target(
            name: "TesseraWebAuthn",
            dependencies: [
                "TesseraCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The server's use cases: no HTTP. jwt-kit is linked here, never by TesseraKit.
        .target(
            name: "TesseraDomain",
            dependencies: [
                "TesseraCore", "TesseraCrypto", "TesseraStore", "TesseraRecords", "TesseraWebAuthn", "TesseraAdminAPI", "TesseraTexts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What an operator runs beside the server: the data directory and its locks,
        // master-key rotation (rekey), bulk seeding, the start-up checks they share.
        .target(
            name: "TesseraOperations",
            dependencies: [
                "TesseraCore", "TesseraCrypto", "TesseraStore", "TesseraRecords", "TesseraDomain", "TesseraSQLite", "TesseraBuildInfo",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "TesseraServer",
            dependencies: [
                "TesseraCore", "TesseraCrypto", "TesseraStore", "TesseraRecords", "TesseraDomain", "TesseraOperations", "TesseraAdminAPI",
                "TesseraBuildInfo", "TesseraTexts", "TesseraQRCode",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The SDK, with its privacy manifest for the App Store.
        .target(
            name: "TesseraKit", dependencies: ["TesseraCore", "TesseraCrypto", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "TesseraKitCompat", dependencies: ["TesseraKit", "TesseraCore", .product(name: "Crypto", package: "swift-crypto")]),
        // What the fast tests share: a test clock, the domain harness over a temporary SQLite
        // file, a device in memory, a recording notifier, and fakes for the SDK's key store,
        // biometric check and transport. No server, PostgreSQL or subprocess.
        .target(
            name: "TesseraTestSupport",
            dependencies: [
                "TesseraCore", "TesseraCrypto", "TesseraRecords", "TesseraStore", "TesseraDomain", "TesseraAdminAPI", "TesseraKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "TesseraTesting",
            dependencies: [
                "TesseraTestSupport", "TesseraKitCompat",
                "TesseraCore", "TesseraCrypto", "TesseraServer", "TesseraKit", "TesseraStore", "TesseraRecords", "TesseraSQLite", "TesseraDomain",
                "TesseraAdminAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                // The router-mode harness (RouterHarness.swift), shared by the server's and the SDK's tests.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraServer", "TesseraKit", "TesseraCore", "TesseraCrypto", "TesseraOperations", "TesseraAdminAPI", "TesseraBuildInfo", "TesseraStore",
                "TesseraDomain", "TesseraTexts", "TesseraQRCode",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore", "TesseraQRCode", "TesseraTesting"]),
        .testTarget(name: "TesseraAdminAPITests", dependencies: ["TesseraAdminAPI", "TesseraCore"]),
        // The SDK's own decisions: key stores and their classes, links, what it links, and
        // TokenManager, background work and the facades against the server in router mode.
        .testTarget(
            name: "TesseraKitTests",
            dependencies: [
                "TesseraKit", "TesseraKitCompat", "TesseraCore", "TesseraCrypto", "TesseraTestSupport", "TesseraTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // docs/SDK.md's samples, compiled (Samples.swift is written from the document by scripts/sdk_samples.py).
        .testTarget(name: "TesseraKitDocTests", dependencies: ["TesseraKit", "TesseraKitCompat", "TesseraCore"]),
        .testTarget(
            name: "TesseraStoreTests",
            dependencies: [
                "TesseraStore", "TesseraRecords", "TesseraCore", "TesseraSQLite", "TesseraTesting", "TesseraBuildInfo",
                .product(name: "Logging", package: "swift-log"), .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .testTarget(
            name: "TesseraDomainTests",
            dependencies: [
                "TesseraDomain", "TesseraStore", "TesseraRecords", "TesseraCore", "TesseraCrypto", "TesseraTestSupport", "TesseraAdminAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "TesseraServerTests",
            dependencies: [
                "TesseraServer", "TesseraStore", "TesseraRecords", "TesseraCore", "TesseraCrypto", "TesseraDomain", "TesseraKit", "TesseraTesting",
                "TesseraTestSupport", "TesseraTexts", "TesseraQRCode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "TesseraCryptoTests",
            dependencies: [
                "TesseraCore", "TesseraCrypto", "TesseraWebAuthn", "TesseraTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "TesseraEndToEndTests",
            dependencies: [
                "TesseraServer", "TesseraKit", "TesseraTesting", "TesseraCore", "TesseraCrypto", "TesseraOperations", "TesseraStore",
                "TesseraRecords", "TesseraAdminAPI", "TesseraTestSupport", "TesseraBuildInfo", "tessera", "TesseraTexts", "TesseraKitCompat", "TesseraQRCode",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every existential is spelled `any`, and a module's members are used only where the
// module is imported (not through another file's import).
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
