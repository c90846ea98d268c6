import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Crypto
import Foundation
import TestSupport

/// A chunk-indexed package packed from a small content folder, served by a ``FaultServer``, with its manifest
/// kept in a fresh store as the queue keeps it once the signed catalog vouched for it.
struct ChunkedFixture {
    let folder: URL
    let archive: [UInt8]
    let manifest: PackageManifest
    let manifestData: Data
    let store: Store

    /// Packs `files` (paths below `Contents/` → bytes) for `productID`, kept in `store` (default: a fresh one);
    /// copies of at least `linkedFileMinimum` bytes in variant folders are stored once (the packer's default).
    init(
        productID: String = "com.example.chunked", files: [String: Data], extraKeys: [String: Any] = [:], store: Store? = nil,
        linkedFileMinimum: Int64? = Packer.smallestLinkedFile
    ) throws {
        let root = try TemporaryDirectory.make(prefix: "chunked")
        folder = root.appendingPathComponent("source", isDirectory: true)
        try PackageFixture.make(at: folder, productID: productID, version: "1.0", files: files, extraKeys: extraKeys)
        var packer = Packer(chunked: true)
        packer.linkedFileMinimum = linkedFileMinimum
        let packed = try packer.pack(folder: folder, outputDirectory: root.appendingPathComponent("out"))
        archive = Array(try Data(contentsOf: packed.archiveURL))
        manifest = packed.manifest
        manifestData = try Data(contentsOf: packed.manifestURL)
        self.store = try store ?? makeStore()
    }

    /// The usual test package: a few small files and two large incompressible ones (about `megabytes` MiB in all).
    static func standard(megabytes: Int = 6) throws -> ChunkedFixture {
        try ChunkedFixture(files: [
            "Contents/readme.txt": Data("hello\n".utf8),
            "Contents/levels/1.json": Data("{\"level\": 1}".utf8),
            "Contents/art/big.bin": PackageFixture.bytes(count: (megabytes - 1) << 20, seed: 7),
            "Contents/art/second.bin": PackageFixture.bytes(count: 1 << 20, seed: 8),
            "Contents/empty.txt": Data(),
        ])
    }

    /// The catalog entry for the archive (with a manifest reference for `manifestData`, or `data`).
    func product(manifest data: Data? = nil) -> CatalogProduct {
        var product = CatalogProduct(
            productID: manifest.productID, contentVersion: manifest.contentVersion, path: "archive.bin", url: nil,
            length: Int64(archive.count), sha256: sha256Hex(archive), uncompressedSize: manifest.uncompressedSize,
            entryCount: manifest.entryCount)
        let bytes = data ?? manifestData
        product.manifest = ManifestReference(path: "manifest.json", length: Int64(bytes.count), sha256: sha256Hex(Array(bytes)))
        return product
    }

    /// Keeps `data` (default: the real manifest) in the store as the download's manifest and plans the install
    /// from nothing as the queue does (every check made before any archive byte is fetched): throws the refusal.
    /// Returns the checked package and its plan.
    @discardableResult
    func keepManifest(_ data: Data? = nil) throws -> (package: ChunkedPackage, plan: ChunkPlan) {
        let bytes = data ?? manifestData
        let product = product(manifest: bytes)
        try store.keepManifest(bytes, of: product, reference: product.manifest!, from: "test")
        let version = manifest.contentVersion.description
        let package = try Planner.checkedPackage(
            manifestPath: store.manifestFile(productID: manifest.productID, version: version).path, product: product)
        let plan = try PlanBuilder(package: package, installed: nil, treePath: tree.path, archiveLength: product.length).run()
        return (package, plan)
    }

    /// The tree the download installs into.
    var tree: URL { store.updateTreeDirectory(productID: manifest.productID, version: manifest.contentVersion.description) }

    /// Runs a download of the archive from `server` to its end.
    func download(from server: FaultServer, product: CatalogProduct? = nil, options: DownloadOptions = fastOptions())
        async throws -> (final: DownloadSnapshot?, all: [DownloadSnapshot], record: TransferRecord?)
    {
        try await ContentDownloadsTests.download(product ?? self.product(), url: server.url(), store: store, options: options, plan: .chunks)
    }

    /// The manifest with `change` applied, encoded.
    func alteredManifest(_ change: (inout PackageManifest) -> Void) throws -> Data {
        var copy = manifest
        change(&copy)
        return try copy.encoded()
    }
}

extension PlanBuilder {
    /// The decision, then its tree made durable with its plan, as the queue plans (without its space check unless
    /// the test gives one).
    func run() throws(InstallError) -> ChunkPlan {
        let builder = TreeBuilder(decision: try decide())
        let built = try builder.build()
        try builder.keep(built)
        return built.plan
    }
}
