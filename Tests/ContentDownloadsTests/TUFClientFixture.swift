@testable import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import TestSupport

/// A TUF repository written by `TUFRepository` (2-of-3 root keys, one online key, 2^`bits` bins) of real packed
/// products, served by nginx on loopback, and a store whose client ships the repository's `1.root.json`.
final class TUFClientFixture {
    let folder: URL
    let rootKeys = (0..<3).map { _ in KeyFileSigner(SigningKey.generate()) }
    let onlineKey = KeyFileSigner(SigningKey.generate())
    let repository: TUFRepository
    let nginx: Nginx
    let store: Store
    private var published = 0
    private var served = 0

    init(bits: Int = 4, products: [(String, String)]) throws {
        folder = try TemporaryDirectory.make(prefix: "tuf-client")
        repository = TUFRepository(directory: folder.appendingPathComponent("repo"), now: Date())
        try repository.initialize(rootSigners: rootKeys, rootThreshold: 2, onlineSigners: [onlineKey], binsBitLength: bits)
        nginx = try Nginx(root: repository.layout.root)
        store = try Store(root: folder.appendingPathComponent("store"))
        try publish(products)
    }

    deinit {
        nginx.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The repository's folder URL.
    var url: String { nginx.baseURL + "/" }
    /// `metadata/<name>` of the served repository.
    func metadata(_ name: String) -> URL { repository.layout.metadata.appendingPathComponent(name) }
    /// The root the app ships.
    var shippedRoot: Data { get throws { try Data(contentsOf: repository.layout.versioned("root", 1)) } }

    /// A client of the served repository for this store.
    func client() throws -> RepositoryClient {
        RepositoryClient(repository: url, trustedRoot: try shippedRoot, store: store)
    }

    /// Packs `products` (id → version) for real, chunk-indexed, and publishes them with `repo add`.
    func publish(_ products: [(String, String)]) throws {
        published += 1
        let input = folder.appendingPathComponent("in-\(published)")
        for (index, (id, version)) in products.enumerated() {
            let package = try PackageFixture.make(
                at: folder.appendingPathComponent("pkg-\(published)-\(index)"), productID: id, version: version,
                files: ["Contents/data.bin": PackageFixture.bytes(count: 200_000, seed: UInt64(published * 100 + index))])
            _ = try Packer(chunked: true).pack(folder: package, outputDirectory: input)
        }
        let catalog = folder.appendingPathComponent("catalog-\(published)")
        _ = try CatalogBuilder(inputDirectory: input, outputDirectory: catalog).build()
        try repository.add(catalogDirectory: catalog, signers: [onlineKey])
    }

    /// Writes `data` at `url` in the served repository as an attacker would, with a modification time no earlier
    /// file there had: nginx's ETag is the modification time (in seconds) and the size, so a file of the same size
    /// written in the same second would otherwise keep its ETag and be answered with a 304.
    func serve(_ data: Data, at url: URL) throws {
        served += 1
        try data.write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(Double(10 + served))], ofItemAtPath: url.path)
    }

    /// The trusted metadata folder's files and their bytes (`.lock` aside).
    func trustedFiles() throws -> [String: Data] {
        let trust = store.root.appendingPathComponent("trust")
        var files: [String: Data] = [:]
        for id in (try? FileManager.default.contentsOfDirectory(atPath: trust.path)) ?? [] {
            for name in try FileManager.default.contentsOfDirectory(atPath: trust.appendingPathComponent(id).path) where name != ".lock" {
                files["\(id)/\(name)"] = try Data(contentsOf: trust.appendingPathComponent(id).appendingPathComponent(name))
            }
        }
        return files
    }

    /// The paths of the requests nginx logged since `skip` requests, with their statuses.
    func requests(after skip: Int = 0) -> [(status: Int, path: String, bytes: Int)] {
        nginx.requests().dropFirst(skip).map { ($0.status, String($0.request.split(separator: " ").dropFirst().first ?? ""), $0.bytesSent) }
    }

    /// The target paths of `productID` in this repository's bins.
    func paths(of productID: String) throws -> ProductTargetPaths {
        ProductTargetPaths(productID: productID, bitLength: try RepositoryState(layout: repository.layout).bins.bitLength)
    }

    /// The current bin of target `path` as the repository holds it.
    func binName(for path: String) throws -> String {
        try RepositoryState(layout: repository.layout).bins.binName(for: path)
    }

    /// The current version of role file `name` (`targets`, a bin).
    func version(of name: String) throws -> Int64 {
        try RepositoryState(layout: repository.layout).snapshot.signed.meta["\(name).json"]!.version
    }
}
