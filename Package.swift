// swift-tools-version:6.1
// iapcontent — open, Linux-native hosted-content delivery (StoreKit SKDownload semantics).
//
// The tree reads like the pipeline:
//   CLinuxSystem → SystemSupport (package-only plumbing: threads, direct/durable I/O, FileSystemError)
//   CArchive + CZstd + CPairedSHA256 + SystemSupport → ContentPackaging (author: validate, pack, inspect)
//   ContentDelivery (catalog model, Ed25519 signing, static layout, URL tokens)
//   ContentHost (Hummingbird `serve`)
//   CCurl → CurlTransport (package-only libcurl wrappers: easy and multi handles, their errors)
//   CurlTransport + CLinuxSystem + SystemSupport → ContentDownloads (queue, transfers, journal, installer, store)
//   CurlTransport + ContentDelivery → ContentPublishing (`publish` and `prune` to S3-style storage)
//   ContentCommandLine → iapcontent (the thin CLI, the daemon and `serve` in one program)
import PackageDescription

/// One set of upcoming-feature flags for every target, as Hummingbird does.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "iapcontent",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "iapcontent", targets: ["iapcontent"]),
        // One program: the client, the daemon and `serve`; the libraries are what an embedder links.
        .library(name: "ContentPackaging", targets: ["ContentPackaging"]),
        .library(name: "ContentDelivery", targets: ["ContentDelivery"]),
        .library(name: "ContentHost", targets: ["ContentHost"]),
        .library(name: "ContentDownloads", targets: ["ContentDownloads"]),
        // A ContentQueue served over a Unix socket (JSON-RPC 2.0): what `iapcontent daemon` runs.
        .library(name: "ContentDaemon", targets: ["ContentDaemon"]),
        // Its one public type is `FileSystemError`, which the libraries' public errors carry; the rest is `package`.
        .library(name: "SystemSupport", targets: ["SystemSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Without its default traits: swift-configuration (and Yams) are not built or linked, and its form coding
        // uses FoundationEssentials; `serve` needs neither.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // MARK: C shims (system libraries from Debian; `tools/setup` installs them)
        // libcurl and libarchive, loaded on first use (CLazyLibrary): the program links neither, so a command that
        // never downloads or reads an archive starts without their 37 libraries. Headers from libcurl4-openssl-dev
        // and libarchive-dev.
        .target(name: "CLazyLibrary"),
        .target(name: "CCurl", dependencies: ["CLazyLibrary"]),
        .target(name: "CArchive", dependencies: ["CLazyLibrary"]),
        /// libzstd itself: the packer compresses the tar stream straight into its output buffers.
        .systemLibrary(
            name: "CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        /// Linux calls Swift's Glibc module lacks (renameat2 / RENAME_EXCHANGE).
        .target(name: "CLinuxSystem"),
        /// SHA-256 blocks on the x86 SHA extensions, two streams interleaved: the pack hashes each chunk and
        /// each file in one pass.
        .target(name: "CPairedSHA256"),

        // MARK: Plumbing every stage shares (package access): named threads, direct and durable I/O,
        // the one errno-carrying error, temp-file registry, detached processes, hex digests
        .target(
            name: "SystemSupport",
            dependencies: [
                "CLinuxSystem",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),

        // MARK: Pipeline stages
        .target(
            name: "ContentPackaging",
            dependencies: [
                "CArchive", "CZstd", "CPairedSHA256", "SystemSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "ContentDelivery",
            dependencies: [
                "ContentPackaging", "SystemSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "ContentHost",
            dependencies: [
                "ContentDelivery",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings),
        /// The libcurl wrappers the client and the publisher share (package access): one easy handle, one multi
        /// handle, libcurl's errors.
        .target(name: "CurlTransport", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        .target(
            name: "ContentDownloads",
            dependencies: [
                "CCurl", "CurlTransport", "CLinuxSystem", "SystemSupport",
                "ContentPackaging", "ContentDelivery",
                // `BitSet`: which of a hundred thousand files or header regions are done, a bit each.
                .product(name: "BitCollections", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),

        /// `iapcontent publish` and `prune`: a signed catalog folder uploaded to S3-style storage create-only and
        /// by compare-and-swap, and the versions no catalog names deleted. Apart from the client library, which never
        /// links upload code; `package` access only (the program is its one user), so it is no library product.
        .target(
            name: "ContentPublishing",
            dependencies: [
                "CCurl", "CurlTransport", "SystemSupport", "ContentPackaging", "ContentDelivery",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),

        /// `iapcontent daemon`: the queue over a Unix socket, JSON-RPC 2.0 a line, changes pushed. Plain sockets
        /// on a thread of its own (no NIO), so the client binary stays small.
        .target(
            name: "ContentDaemon",
            dependencies: [
                "ContentDownloads", "ContentDelivery", "ContentPackaging", "CLinuxSystem", "SystemSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // MARK: Command line: shared options and exit statuses, the CLI, and the server program
        .target(
            name: "ContentCommandLine",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "iapcontent",
            dependencies: [
                "ContentCommandLine", "ContentPackaging", "ContentDelivery", "ContentDownloads", "ContentPublishing", "ContentDaemon",
                "ContentHost", "SystemSupport", "CICUData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Rainbow", package: "Rainbow"),
            ],
            swiftSettings: swiftSettings),
        // The shipping build's trimmed ICU data (empty unless tools/release-build provides it).
        .target(name: "CICUData"),

        // MARK: The example service: a launcher daemon embedding ContentDownloads (Examples/launcher). Built with the
        // package, so its build and warning check share the package's (one build of the dependencies, not two);
        // Examples/launcher/Package.swift builds the same sources as an embedder's own package.
        .executableTarget(
            name: "launcher",
            dependencies: ["ContentDownloads", "ContentDelivery"],
            path: "Examples/launcher/Sources/launcher"),

        // MARK: Test support: real servers (nginx, fault server), test data, child processes
        .target(
            name: "TestSupport",
            dependencies: ["ContentPackaging", "CArchive"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings),

        // MARK: Tests, one target per module
        .testTarget(
            name: "SystemSupportTests",
            dependencies: ["SystemSupport", "CLinuxSystem", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentPackagingTests",
            dependencies: [
                "ContentPackaging", "SystemSupport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentDeliveryTests",
            dependencies: [
                "ContentDelivery", "ContentPackaging", "SystemSupport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentHostTests",
            dependencies: [
                "ContentHost", "ContentDelivery", "ContentPackaging", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentDownloadsTests",
            dependencies: [
                "ContentDownloads", "ContentDelivery", "ContentPackaging", "CurlTransport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),  // to build journals of older schemas
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentPublishingTests",
            dependencies: [
                "ContentPublishing", "ContentDelivery", "ContentPackaging", "TestSupport",
                "ContentDownloads",  // a client reads what was published
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentDaemonTests",
            dependencies: [
                "ContentDaemon", "ContentDownloads", "ContentDelivery", "ContentPackaging", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "iapcontentTests",
            dependencies: [
                "iapcontent", "ContentCommandLine", "ContentPackaging", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
