import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// An S3 server the publish and prune tests run against: its endpoint, bucket, the environment a publisher signs
/// with, the anonymous URL clients read an object from, and how it stops.
protocol PublishTestServer: AnyObject, Sendable {
    /// `http://127.0.0.1:<port>`.
    var endpoint: String { get }
    /// The bucket.
    var bucket: String { get }
    /// `AWS_*` variables for a publisher.
    var credentials: [String: String] { get }
    /// The anonymous read URL of `key`.
    func publicURL(_ key: String) -> String
    /// Stops the server.
    func stop()
}

extension SeaweedFS: PublishTestServer {}
extension MotoServer: PublishTestServer {}

/// The S3 servers the publish and prune tests run against.
enum PublishBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    /// SeaweedFS (`weed mini`); clients read through its filer.
    case seaweedFS
    /// moto (`moto_server`); clients read the public-read bucket.
    case moto

    var description: String { rawValue }

    /// The servers installed here (every one under `CI`, where a missing server fails its tests).
    static var available: [PublishBackend] {
        allCases.filter { backend in
            switch backend {
            case .seaweedFS: SeaweedFS.testsRun
            case .moto: MotoServer.testsRun
            }
        }
    }
}

/// A real S3 server (SeaweedFS or moto), a signing key, and signed catalog folders built with the real
/// `iapcontent pack` and `catalog`, for the `publish` and `prune` tests; readers fetch through the server's
/// anonymous URLs.
final class PublishFixture: @unchecked Sendable {
    let root: TemporaryDirectory
    /// The server.
    let server: any PublishTestServer
    let keyFile: URL
    let publicKey: String

    init(_ backend: PublishBackend = .seaweedFS) throws {
        root = try TemporaryDirectory("publish")
        switch backend {
        case .seaweedFS: server = try SeaweedFS()
        case .moto: server = try MotoServer()
        }
        (keyFile, publicKey) = try Self.signingKey(in: root)
    }

    /// A fixture publishing to `server` (a test's own stand-in server), stopped with the fixture.
    init(server: any PublishTestServer) throws {
        root = try TemporaryDirectory("publish")
        self.server = server
        (keyFile, publicKey) = try Self.signingKey(in: root)
    }

    /// A new signing key in `root`: its file and its public key.
    private static func signingKey(in root: TemporaryDirectory) throws -> (URL, String) {
        let keyFile = root.url.appendingPathComponent("sign.key")
        let keygen = try CommandRunner.iapcontent(["keygen", "--output", keyFile.path])
        guard keygen.status == 0, let key = keygen.stdoutLines.first else { throw TestSupportError("keygen failed: \(keygen.stderr)") }
        return (keyFile, key)
    }

    deinit { server.stop() }

    /// A product of the site: its identifier, version and one file of `size` pseudo-random bytes from `seed`.
    struct Product {
        var id: String
        var version = "1.0"
        var size: Int
        var seed: UInt64
    }

    /// Packs `products` and writes the signed catalog folder `site-<name>` at `catalogVersion`.
    func site(_ name: String, catalogVersion: UInt64, products: [Product]) throws -> URL {
        let dist = root.url.appendingPathComponent("dist-\(name)")
        for product in products {
            let folder = root.url.appendingPathComponent("content-\(name)-\(product.id)")
            try PackageFixture.make(
                at: folder, productID: product.id, version: product.version,
                files: ["Contents/data.bin": PackageFixture.bytes(count: product.size, seed: product.seed)])
            let pack = try CommandRunner.iapcontent(["pack", folder.path, "--output", dist.path])
            guard pack.status == 0 else { throw TestSupportError("pack failed: \(pack.stderr)") }
        }
        let site = root.url.appendingPathComponent("site-\(name)")
        let catalog = try CommandRunner.iapcontent([
            "catalog", dist.path, "--output", site.path, "--signing-key", keyFile.path,
            "--catalog-version", String(catalogVersion), "--expires-in", "86400",
        ])
        guard catalog.status == 0 else { throw TestSupportError("catalog failed: \(catalog.stderr)") }
        return site
    }

    /// Runs `iapcontent publish site s3://bucket/prefix` against the server.
    func publish(_ site: URL, prefix: String, arguments: [String] = [], environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.iapcontent(
            ["publish", site.path, "s3://\(server.bucket)/\(prefix)", "--endpoint", server.endpoint] + arguments,
            environment: server.credentials.merging(environment) { _, new in new })
    }

    /// Starts `iapcontent publish` without waiting; its stdout and stderr go to `<log>.out` / `<log>.err`.
    func startPublish(_ site: URL, prefix: String, log: URL, environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = ["publish", site.path, "s3://\(server.bucket)/\(prefix)", "--endpoint", server.endpoint]
        process.environment = ProcessInfo.processInfo.environment.merging(server.credentials.merging(environment) { _, new in new }) { _, new in new }
        _ = FileManager.default.createFile(atPath: log.path + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: log.path + ".err", contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path + ".err"))
        try process.run()
        return process
    }

    /// The anonymous URL of `catalog.json` under `prefix`.
    func catalogURL(_ prefix: String) -> String { server.publicURL("\(prefix)/\(Catalog.fileName)") }

    /// The status and body of an anonymous GET through the filer.
    func fetch(_ url: String) throws -> (status: Int, body: Data) {
        let file = root.url.appendingPathComponent("fetch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CommandRunner.run("/usr/bin/curl", ["-s", "-o", file.path, "-w", "%{http_code}", url])
        return (Int(result.stdout) ?? 0, (try? Data(contentsOf: file)) ?? Data())
    }

    /// What a client reading `prefix` now gets, checked as a client checks it: the catalog verified with its
    /// signature (by hash, else beside it) by a fresh store, and every archive and manifest it names present with
    /// the length it states. Throws when a client would fail.
    func reader(_ prefix: String) throws -> Catalog {
        let store = root.url.appendingPathComponent("reader-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let source = try CatalogSource.loadVerified(catalogURL(prefix), pinnedPublicKeys: [publicKey], store: Store(root: store))
        for product in source.catalog.products {
            var paths = [(product.path, product.length)]
            if let manifest = product.manifest { paths.append((manifest.path, manifest.length)) }
            for (path, length) in paths {
                let (status, body) = try fetch(server.publicURL("\(prefix)/\(path)"))
                guard status == 200, body.count == length else {
                    throw TestSupportError("\(prefix)/\(path) of catalogVersion \(source.catalog.catalogVersion): HTTP \(status), \(body.count) bytes, not \(length)")
                }
            }
        }
        return source.catalog
    }

    /// Whether `catalog.json.sig` beside the live catalog verifies it (what clients that predate `signatures/` read).
    func legacySignatureMatches(_ prefix: String) throws -> Bool {
        let catalog = try fetch(catalogURL(prefix)).body
        let signature = try fetch(server.publicURL("\(prefix)/\(Catalog.signatureFileName)")).body
        let verifier = try CatalogVerifier(pinnedPublicKeys: [publicKey])
        return (try? verifier.verify(catalogData: catalog, signatureData: signature, highestSeenVersion: nil, now: Date())) != nil
    }
}
