import ContentDelivery
import ContentDownloads
import ContentPackaging
import Crypto
import Foundation
import Testing
import TestSupport

/// A temp folder holding a store, a sentinel folder beside it (nothing may ever appear there) and archives.
struct InstallFixture: ~Copyable {
    let root: URL
    let store: Store
    let sentinel: URL
    let archives: URL
    static let productID = "com.example.levels"

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("install-\(UUID().uuidString)", isDirectory: true)
        sentinel = root.appendingPathComponent("sentinel", isDirectory: true)
        archives = root.appendingPathComponent("archives", isDirectory: true)
        try FileManager.default.createDirectory(at: sentinel, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
        try Data("do not touch\n".utf8).write(to: sentinel.appendingPathComponent("victim"))
        store = try Store(root: root.appendingPathComponent("store", isDirectory: true))
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes `builder` to `archives/<name>` and returns the catalog entry for it (true length and SHA-256).
    func product(
        _ builder: TestArchiveBuilder, name: String, version: String,
        uncompressedSize: Int64? = nil, entryCount: Int? = nil, productID: String = InstallFixture.productID
    ) throws -> (URL, CatalogProduct) {
        let url = archives.appendingPathComponent(name)
        try builder.write(to: url)
        return (url, try Self.catalogProduct(
            for: url, productID: productID, version: version,
            uncompressedSize: uncompressedSize ?? builder.declaredUncompressedSize,
            entryCount: entryCount ?? builder.entries.count))
    }

    static func catalogProduct(
        for url: URL, productID: String, version: String, uncompressedSize: Int64, entryCount: Int
    ) throws -> CatalogProduct {
        let data = try Data(contentsOf: url)
        let sha = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        return CatalogProduct(
            productID: productID, contentVersion: ContentVersion(version)!, path: url.lastPathComponent,
            length: Int64(data.count), sha256: sha, uncompressedSize: uncompressedSize, entryCount: entryCount)
    }

    /// Options for tests: no space margin (temp dirs may be small), keep going otherwise as in production.
    static let options = ContentInstaller.Options(spacePreflight: nil)

    /// A good package with the given version and a few files.
    static func package(version: String, productID: String = InstallFixture.productID) -> TestArchiveBuilder {
        TestArchiveBuilder.package(productID: productID, version: version, files: [
            "version.txt": Data("version \(version)\n".utf8),
            "levels/1.json": Data("{\"level\":1,\"v\":\"\(version)\"}".utf8),
            "art/big.bin": Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
        ])
    }

    /// Installs a good version and returns its snapshot.
    @discardableResult
    func installGood(version: String) throws -> [String: Snapshot.Node] {
        let (url, product) = try product(Self.package(version: version), name: "good-\(version).tar.zst", version: version)
        let installed = try ContentInstaller.install(archive: url, product: product, store: store, options: Self.options)
        return try Snapshot.take(installed)
    }

    var contentFolder: URL { store.contentDirectory.appendingPathComponent(Self.productID) }

    func stagingNames() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.stagingDirectory.path)) ?? []
    }
}

/// A recursive description of a folder: kind, mode and bytes of every item (no symlink following).
enum Snapshot {
    enum Node: Equatable {
        case file(mode: UInt32, data: Data)
        case directory(mode: UInt32)
        case other(mode: UInt32)
    }

    static func take(_ root: URL) throws -> [String: Node] {
        var result: [String: Node] = [:]
        func walk(_ url: URL, _ relative: String) throws {
            var info = stat()
            guard lstat(url.path, &info) == 0 else { return }
            let mode = UInt32(info.st_mode) & 0o7777
            switch UInt32(info.st_mode) & UInt32(S_IFMT) {
            case UInt32(S_IFREG): result[relative] = .file(mode: mode, data: try Data(contentsOf: url))
            case UInt32(S_IFDIR):
                result[relative] = .directory(mode: mode)
                for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
                    try walk(url.appendingPathComponent(name), relative.isEmpty ? name : relative + "/" + name)
                }
            default: result[relative] = .other(mode: mode)
            }
        }
        try walk(root, "")
        return result
    }
}

/// Runs `body`, expecting it to throw an ``InstallError`` that `matches` accepts.
func expectInstallError(
    _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation,
    where matches: (InstallError) -> Bool
) {
    do {
        try body()
        Issue.record("expected an InstallError, but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as InstallError {
        #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected an InstallError, got \(error)", sourceLocation: sourceLocation)
    }
}
