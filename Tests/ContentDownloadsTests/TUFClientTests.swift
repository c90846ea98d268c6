@testable import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The TUF client workflow against a repository `iapcontent repo` wrote, served by nginx: what a first install and
/// an update check fetch, and that the trusted metadata in the store moves only forward.
@Suite("TUF client: the workflow and what it fetches")
struct TUFClientTests {
    static let maps = "com.example.maps"
    static let music = "com.example.music"
    static var mapsPaths: ProductTargetPaths { ProductTargetPaths(productID: maps, bitLength: 4) }
    static var mapsArchive: String { mapsPaths.archive }

    @Test func aFirstCheckFollowsTheChainToTheProductsOneBinAndNeverTheWholeSnapshot() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0"), (Self.music, "1.0")])
        let check = try fixture.client().check(productIDs: [Self.maps])
        let product = try check.source.product(Self.maps)
        #expect(product.contentVersion.description == "1.0")
        let state = try RepositoryState(layout: fixture.repository.layout)
        let target = try #require(try state.bin(state.bins.binName(for: Self.mapsArchive)).signed.targets[Self.mapsArchive])
        #expect(product.sha256 == target.sha256 && product.length == target.length)
        let archive = Self.mapsArchive as NSString
        #expect(product.path == archive.deletingLastPathComponent + "/\(target.sha256).\(archive.lastPathComponent)")
        #expect(check.source.archiveURLCandidates(for: product) == [fixture.url + "targets/" + product.path])

        let paths = fixture.requests().map(\.path)
        #expect(paths.first == "/metadata/2.root.json" && paths.dropFirst().first == "/metadata/timestamp.json")
        #expect(!paths.contains { $0.contains("snapshot.json") }, "\(paths)")
        #expect(paths.contains { $0.hasPrefix("/metadata/snapshot-tree/") })
        let bins = Set(paths.filter { $0.contains(".bins-") })
        // The archive and the manifest share one bin (`ProductTargetPaths`): one bin fetched.
        #expect(product.manifest != nil)
        let bin = try fixture.binName(for: Self.mapsArchive)
        #expect(try fixture.binName(for: Self.mapsPaths.manifest()) == bin)
        #expect(bins == ["/metadata/\(try fixture.version(of: bin)).\(bin).json"], "\(paths)")
        #expect(check.requests == paths.count)
        let names = Set(try fixture.trustedFiles().keys.map { $0.split(separator: "/").last.map(String.init)! })
        #expect(names.isSuperset(of: ["root.json", "timestamp.json", "targets.json", "state.json"]), "\(names)")
    }

    @Test func aCheckWithNothingPublishedIsOneRootProbeAndOne304() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let client = try fixture.client()
        _ = try client.check(productIDs: [Self.maps])
        let before = fixture.requests().count
        let trusted = try fixture.trustedFiles()
        let again = try client.check(productIDs: [Self.maps])
        let requests = fixture.requests(after: before)
        #expect(requests.map(\.path) == ["/metadata/2.root.json", "/metadata/timestamp.json"])
        #expect(requests.map(\.status) == [404, 304])
        #expect(!again.timestampChanged)
        #expect(try again.source.product(Self.maps).contentVersion.description == "1.0")
        #expect(again.bytesReceived <= 2048, "\(again.bytesReceived) bytes")
        #expect(try fixture.trustedFiles() == trusted)
    }

    @Test func aCheckAfterAnotherProductChangedReadsTreePagesAndNoBinOfOurs() throws {
        let fixture = try TUFClientFixture(bits: 6, products: [(Self.maps, "1.0"), (Self.music, "1.0")])
        let client = try fixture.client()
        _ = try client.check(productIDs: [Self.maps])
        try fixture.publish([(Self.music, "2.0")])
        let before = fixture.requests().count
        let check = try client.check(productIDs: [Self.maps])
        let paths = fixture.requests(after: before).map(\.path)
        #expect(check.timestampChanged)
        #expect(!paths.contains { $0.contains("bins-") || $0.contains("snapshot.json") }, "\(paths)")
        // The root node, then one page each for targets.json and the product's bin.
        #expect(paths.filter { $0.hasPrefix("/metadata/snapshot-tree/") }.count <= 3, "\(paths)")
        #expect(check.bytesReceived <= 32 << 10)

        // Our own product's new version: its bin is fetched again, and the catalog entry is the new one.
        try fixture.publish([(Self.maps, "2.0")])
        #expect(try client.catalogSource(for: [Self.maps]).product(Self.maps).contentVersion.description == "2.0")
    }

    @Test func aProductTheRepositoryDoesNotListIsACatalogError() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let error = try #require(throws: DownloadError.self) { try fixture.client().check(productIDs: ["com.example.none"]) }
        #expect(error.code == .catalog && error.message.contains("com.example.none"))
    }

    @Test func aRootRotationReachesAClientThroughTheChain() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let client = try fixture.client()
        _ = try client.check(productIDs: [Self.maps])
        let newRoot = (0..<2).map { _ in KeyFileSigner(SigningKey.generate()) }
        try fixture.repository.rotateRoot(signers: Array(fixture.rootKeys[0...1]) + newRoot, newRootKeys: newRoot.map(\.key), newThreshold: 2)
        try fixture.repository.rotateRoot(signers: newRoot, newRootKeys: newRoot.map(\.key), newThreshold: 1)
        let check = try client.check(productIDs: [Self.maps])
        #expect(check.rootVersion == 3)
        let stored = try fixture.trustedFiles().first { $0.key.hasSuffix("/root.json") }?.value
        #expect(stored == (try Data(contentsOf: fixture.repository.layout.versioned("root", 3))))
    }

    @Test func aRepositoryOnDiskIsReadByPath() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let client = RepositoryClient(repository: fixture.repository.layout.root.path, trustedRoot: try fixture.shippedRoot, store: fixture.store)
        let product = try client.catalogSource(for: [Self.maps]).product(Self.maps)
        #expect(product.contentVersion.description == "1.0")
    }

    /// The trusted root is a file the user names: a FIFO, a folder, a huge file or garbage is a clear error at once,
    /// and a FIFO planted where the store keeps its trusted files is ignored, never waited on.
    @Test func aHostileTrustedRootOrTrustFolderIsRefusedWithoutHanging() throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let fifo = fixture.folder.appendingPathComponent("root.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let huge = fixture.folder.appendingPathComponent("huge.json")
        try Data(repeating: 0x20, count: 1 << 20).write(to: huge)
        for (path, words) in [(fifo.path, "not a regular file"), (huge.path, "524288"), (fixture.folder.path, "not a regular file"),
                              (fixture.folder.appendingPathComponent("none.json").path, "no such file")] {
            let error = #expect(throws: DownloadError.self) {
                try RepositoryClient(repository: fixture.url, trustedRootFile: path, store: fixture.store)
            }
            #expect(error?.code == .catalog && error?.message.contains(words) == true, "\(path): \(error?.message ?? "")")
        }
        let garbage = #expect(throws: DownloadError.self) {
            try RepositoryClient(repository: fixture.url, trustedRoot: Data("{\"signed\": 1}".utf8), store: fixture.store).check(productIDs: [])
        }
        #expect(garbage?.code == .badMetadata)

        let client = try fixture.client()
        _ = try client.check(productIDs: [Self.maps])
        let trust = fixture.store.trustedMetadataFolder(repository: client.repositoryURL)
        let timestamp = trust.appendingPathComponent("timestamp.json")
        try FileManager.default.removeItem(at: timestamp)
        #expect(mkfifo(timestamp.path, 0o600) == 0)
        #expect(try client.check(productIDs: [Self.maps]).timestampVersion >= 1)
    }
}
