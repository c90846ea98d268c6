@testable import ContentDelivery
import ContentPackaging
import Foundation
import TestSupport

/// A temp folder for a repository, its keys, and a fixed clock.
struct RepositoryFixture {
    let folder: URL
    let rootKeys = (0..<3).map { _ in KeyFileSigner(SigningKey.generate()) }
    let onlineKey = KeyFileSigner(SigningKey.generate())
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-tuf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    var directory: URL { folder.appendingPathComponent("repo") }

    func repository(now: Date = RepositoryFixture.now) -> TUFRepository {
        TUFRepository(directory: directory, now: now)
    }

    /// A repository with 2-of-3 root keys, the online key, 2^`bits` bins.
    /// (`now`: the real clock for a repository an outside client reads, which checks expiry against its own.)
    func initialize(bits: Int = 4, now: Date = RepositoryFixture.now) throws -> TUFRepository {
        let repository = repository(now: now)
        try repository.initialize(rootSigners: rootKeys, rootThreshold: 2, onlineSigners: [onlineKey], binsBitLength: bits)
        return repository
    }

    /// A catalog folder holding `products` (id → version), built by `CatalogBuilder` from hand-made archives.
    func catalog(_ name: String, _ products: [(String, String)]) throws -> URL {
        let delivery = try DeliveryFixture()
        for (id, version) in products { try delivery.addArchive(id, version) }
        let output = folder.appendingPathComponent(name)
        _ = try delivery.builder(output: output, version: nil).build()
        delivery.remove()
        return output
    }

    /// A catalog folder holding chunk-indexed packs (archive + manifest) of `products` (id → version), packed for real.
    func packedCatalog(_ name: String, _ products: [(String, String)]) throws -> URL {
        let input = folder.appendingPathComponent("\(name)-in")
        for (index, (id, version)) in products.enumerated() {
            let package = try PackageFixture.make(
                at: folder.appendingPathComponent("\(name)-pkg-\(index)"), productID: id, version: version,
                files: ["Contents/data.bin": PackageFixture.bytes(count: 300_000, seed: UInt64(index + 1) * 7 + UInt64(version.count))])
            _ = try Packer(chunked: true).pack(folder: package, outputDirectory: input)
        }
        let output = folder.appendingPathComponent(name)
        _ = try CatalogBuilder(inputDirectory: input, outputDirectory: output).build()
        return output
    }

    /// The names of the metadata files, sorted.
    func metadataFiles() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("metadata").path))
    }
}
