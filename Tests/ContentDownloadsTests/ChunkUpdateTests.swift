import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// Two versions of a game: a 12 MiB file with 10 KB changed in its middle, a 3 MiB file renamed, a level
/// changed, a file removed and one added.
struct DeltaVersions {
    static let productID = "com.example.game"
    let v1: URL
    let v2: URL

    init(_ fixture: QueueFixture) throws {
        let big = PackageFixture.bytes(count: 12 << 20, seed: 7)
        var changed = big
        changed.replaceSubrange((6 << 20)..<((6 << 20) + 10_000), with: PackageFixture.bytes(count: 10_000, seed: 8))
        let art = PackageFixture.bytes(count: 3 << 20, seed: 9)
        v1 = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/game-1.0"), productID: Self.productID, version: "1.0", files: [
                "Contents/big.bin": big, "Contents/art/old-name.bin": art,
                "Contents/levels/1.json": Data("{\"level\": 1, \"speed\": 1}".utf8),
                "Contents/gone.txt": Data("removed in 2.0\n".utf8),
            ])
        v2 = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/game-2.0"), productID: Self.productID, version: "2.0", files: [
                "Contents/big.bin": changed, "Contents/art/new-name.bin": art,
                "Contents/levels/1.json": Data("{\"level\": 1, \"speed\": 2}".utf8),
                "Contents/new.txt": Data("added in 2.0\n".utf8),
            ])
    }

    /// Installs 1.0 with the CLI, then (unless `publishingNext` is false) publishes 2.0 beside it; returns the store.
    func installFirst(_ fixture: QueueFixture, publishingNext: Bool = true) async throws -> URL {
        try fixture.publish([v1], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let run = try await iapcontentOffPool(["download", Self.productID, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(run.status == 0, "\(run.output)")
        if publishingNext { try fixture.publish([v1, v2], chunked: true) }
        return store
    }

    /// The published 2.0 product.
    static func published(_ fixture: QueueFixture) throws -> CatalogProduct {
        try #require(try fixture.catalog().catalog.product(productID))
    }

    /// The body bytes nginx sent for version 2.0's archive, and the statuses.
    static func archiveTraffic(_ fixture: QueueFixture) throws -> (bytes: Int, statuses: Set<Int>) {
        let name = "\(try published(fixture).sha256).tar.zst"
        let requests = fixture.nginx.requests().filter { $0.request.contains(name) }
        return (requests.reduce(0) { $0 + $1.bodyBytesSent }, Set(requests.map(\.status)))
    }

    static func archiveSize(_ fixture: QueueFixture) throws -> Int { Int(try published(fixture).length) }
}

/// An update fetches only the chunks that changed, by `Range` from the same static archive, and installs the
/// new version exactly; what cannot be used locally is fetched, and the installed version is never touched.
@Suite struct ChunkUpdateTests {
    @Test func anUpdateFetchesOnlyWhatChanged() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("update: fetching only what changed"), "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description == "2.0")
        #expect(try diffTrees(versions.v2, installed).status == 0)
        let traffic = try DeltaVersions.archiveTraffic(fixture)
        let size = try DeltaVersions.archiveSize(fixture)
        #expect(traffic.statuses == [206])
        #expect(traffic.bytes > 0 && traffic.bytes < size / 4, "fetched \(traffic.bytes) of \(size) bytes")
        let verify = try await iapcontentOffPool(["verify", DeltaVersions.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
    }

    @Test func statusAndRestoreShowTheUpdateSizeAndRestoreTakesTheUpdatePath() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let status = try await iapcontentOffPool(["status", "--catalog", fixture.catalogURL, "--store", store.path, "--json"])
        #expect(status.status == 0, "\(status.output)")
        let start = try #require(status.output.firstIndex(of: "["))
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.output[start...].utf8)) as? [[String: Any]])
        let entry = try #require(entries.first { $0["productID"] as? String == DeltaVersions.productID })
        #expect(entry["updateAvailable"] as? String == "2.0")
        let updateBytes = try #require(entry["updateBytes"] as? Int)
        let archiveSize = try DeltaVersions.archiveSize(fixture)
        #expect(updateBytes > 0 && updateBytes < archiveSize / 4, "\(entry)")

        let restore = try await iapcontentOffPool(["restore", "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("update \(DeltaVersions.productID) 1.0 → 2.0 (fetches"), "\(restore.output)")
        #expect(restore.output.contains("update: fetching only what changed"), "\(restore.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v2, installed).status == 0)
    }

    @Test func thePublishersReportMatchesWhatTheUpdateFetches() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let packed = fixture.root.appendingPathComponent("packed")
        let old = packed.appendingPathComponent("\(DeltaVersions.productID)-1.0.manifest").path
        let new = packed.appendingPathComponent("\(DeltaVersions.productID)-2.0.tar.zst").path
        let diff = try await iapcontentOffPool(["diff", old, new, "--json"])
        #expect(diff.status == 0, "\(diff.output)")
        let start = try #require(diff.output.firstIndex(of: "{"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(diff.output[start...].utf8)) as? [String: Any])
        let fetchBytes = try #require(report["fetchBytes"] as? Int)
        let catalog = try await iapcontentOffPool(["catalog", packed.path, "--output", fixture.root.appendingPathComponent("site").path])
        #expect(catalog.status == 0 && catalog.output.contains("update from 1.0 → 2.0: fetches"), "\(catalog.output)")

        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(update.status == 0, "\(update.output)")
        // The archive bytes the client asked for (a multi-range reply adds its part headers to the body sent).
        let name = "\(try DeltaVersions.published(fixture).sha256).tar.zst"
        let archiveBytes = fixture.nginx.requests().filter { $0.request.hasPrefix("GET") && $0.request.contains(name) && $0.status == 206 }
            .reduce(0) { total, request in
            total + request.range.dropFirst("bytes=".count).split(separator: ",").reduce(0) { sum, range in
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                return sum + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 0)
            }
        }
        #expect(archiveBytes == fetchBytes, "the client fetched \(archiveBytes) archive bytes, the report said \(fetchBytes)")
    }

    @Test func aDamagedInstalledFileIsFetchedNotLinked() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let content = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        let handle = try FileHandle(forUpdating: content.appendingPathComponent("Contents/art/old-name.bin"))
        try handle.seek(toOffset: 5000)
        try handle.write(contentsOf: Data([0x55, 0x66]))
        try handle.close()
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v2, installed).status == 0)
        // The renamed file cannot be linked (it changed since it was installed); its chunks are rebuilt from it
        // where they still match their hashes, and the damaged one is fetched.
        #expect(update.output.contains("an installed file no longer holds a chunk it held; fetching it"), "\(update.output)")
    }

    @Test func withoutTheInstalledManifestTheWholeArchiveIsFetched() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        try FileManager.default.removeItem(at: store.appendingPathComponent("manifests/\(DeltaVersions.productID).manifest.json"))
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("no chunk-indexed manifest"), "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v2, installed).status == 0)
        #expect(try DeltaVersions.archiveTraffic(fixture).bytes == (try DeltaVersions.archiveSize(fixture)))
    }

    @Test func aServerThatIgnoresRangeStillGivesTheNewVersion() async throws {
        let fixture = try QueueFixture(locationConfig: "max_ranges 0;")
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("ignored Range"), "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v2, installed).status == 0)
        #expect(try DeltaVersions.archiveTraffic(fixture).statuses == [200])
    }

    @Test func aFetchedChunkFailingItsHashFailsClearlyAndKeepsTheInstalledVersion() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        // Damage the published 2.0 archive in the middle of big.bin, where the update must fetch.
        let product = try DeltaVersions.published(fixture)
        let url = fixture.nginx.root.appendingPathComponent("archives/\(product.sha256).tar.zst")
        var bytes = try Data(contentsOf: url)
        let reference = try #require(product.manifest)
        let manifest = try PackageManifest.decode(try Data(contentsOf: fixture.nginx.root.appendingPathComponent(reference.path)))
        let big = try #require(manifest.files.first { $0.path == "Contents/big.bin" })
        let middle = big.dataOffset! + (6 << 20) + 5000
        let chunk = try #require(manifest.chunks?.first { $0.uncompressedOffset <= middle && middle < $0.uncompressedOffset + $0.uncompressedLength })
        let at = Int(chunk.offset + chunk.length / 2)
        bytes[at] ^= 0xFF
        try bytes.write(to: url)
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(update.status != 0)
        #expect(update.output.contains("chunk"), "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description == "1.0")
        #expect(try diffTrees(versions.v1, installed).status == 0)
        let verify = try await iapcontentOffPool(["verify", DeltaVersions.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
    }
}
