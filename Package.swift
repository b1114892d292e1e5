// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushBridge",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushbridge", targets: ["pushbridge"]),
        .library(name: "PushBridgeCore", targets: ["PushBridgeCore"]),
    ],
    targets: [
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Pure Swift: JSON, the OpenPush model and rules, the dialects, findings. No C imports.
        .target(name: "PushBridgeCore", linkerSettings: [.linkedLibrary("m")]),
        // I/O: HTTP server, upstream client, audit store, sandbox.
        .target(
            name: "PushBridgeServer",
            dependencies: ["PushBridgeCore", "CMicroHTTPD", "CCurl", "CSQLite", "COpenSSL", "CLibPQ", "CBlockCache"]
        ),
        // A per-thread cache of freed blocks that SQLite and libcurl allocate through (SQLite's
        // lookaside is compiled out of Debian's library).
        .target(name: "CBlockCache"),
        .executableTarget(name: "pushbridge", dependencies: ["PushBridgeCore", "PushBridgeServer"]),
        .executableTarget(
            name: "translate-bench",
            dependencies: ["PushBridgeCore"],
            path: "bench/translate",
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
        .executableTarget(
            name: "log-bench",
            dependencies: ["PushBridgeCore", "PushBridgeServer"],
            path: "bench/log"
        ),
        .executableTarget(
            name: "audit-bench",
            dependencies: ["PushBridgeCore", "PushBridgeServer"],
            path: "bench/audit"
        ),
        .executableTarget(
            name: "redaction-bench",
            dependencies: ["PushBridgeCore"],
            path: "bench/redaction"
        ),
        .executableTarget(
            name: "report-bench",
            dependencies: ["PushBridgeCore", "PushBridgeServer"],
            path: "bench/report"
        ),
        // The counting allocator (malloc and the rest forwarded to glibc's own, counted while on):
        // linked into `alloc-count` only, never into `pushbridge` (AllocationGuardTests checks).
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "alloc-count",
            dependencies: ["CAllocationCounter", "PushBridgeCore", "PushBridgeServer"],
            path: "bench/alloc"
        ),
        // What both test targets share: where the repository and its fixtures are.
        .target(name: "PushBridgeTestSupport", path: "Tests/PushBridgeTestSupport"),
        .testTarget(name: "PushBridgeCoreTests", dependencies: ["PushBridgeCore", "PushBridgeTestSupport"]),
        .testTarget(name: "PushBridgeServerTests", dependencies: ["PushBridgeCore", "PushBridgeServer", "PushBridgeTestSupport"]),
    ]
)
