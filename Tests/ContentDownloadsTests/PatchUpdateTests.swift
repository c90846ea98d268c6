import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// An update from a version the catalog offers a precomputed patch for fetches that one file — no manifest, no
/// chunk — and installs the new version exactly; a patch that fails a check, or an installed file changed since,
/// costs only the fallback to the manifest and the chunks, never a wrong byte.
@Suite struct PatchUpdateTests {
    /// Installs 1.0 with the CLI, then publishes 2.0 with the patch from 1.0 beside it; returns the store.
    static func installFirstThenOfferAPatch(_ fixture: QueueFixture, _ versions: DeltaVersions) async throws -> URL {
        let store = try await versions.installFirst(fixture)
        let packed = fixture.root.appendingPathComponent("packed", isDirectory: true)
        let manifest = { (version: String) in try Data(contentsOf: packed.appendingPathComponent("\(DeltaVersions.productID)-\(version).manifest")) }
        let (patch, _) = try PatchWriter.write(oldManifest: try manifest("1.0"), oldFolder: versions.v1, newManifest: try manifest("2.0"), newFolder: versions.v2)
        try patch.write(to: packed.appendingPathComponent("\(DeltaVersions.productID)-1.0-to-2.0.patch"))
        try fixture.publish([versions.v1, versions.v2], chunked: true)
        let offered = try #require(try DeltaVersions.published(fixture).patches)
        #expect(offered.count == 1 && offered[0].fromVersion.description == "1.0" && offered[0].length == Int64(patch.count))
        return store
    }

    /// Requests for `fragment` (an archive's, the manifests' or the patches' path) nginx served.
    static func requests(_ fixture: QueueFixture, containing fragment: String) -> [Nginx.LoggedRequest] {
        fixture.nginx.requests().filter { $0.request.contains(fragment) }
    }

    static func installedEqualsTheNewVersion(_ store: URL, _ versions: DeltaVersions) async throws {
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description == "2.0")
        #expect(try diffTrees(versions.v2, installed).status == 0)
        let verify = try await iapcontentOffPool(["verify", DeltaVersions.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
    }

    @Test func anUpdateFetchesOnePatchAndNoManifestOrChunk() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await Self.installFirstThenOfferAPatch(fixture, versions)
        // `status` tells what the update fetches: the patch.
        let status = try await iapcontentOffPool(["status", "--catalog", fixture.catalogURL, "--store", store.path, "--json"])
        let start = try #require(status.output.firstIndex(of: "["), "\(status.output)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.output[start...].utf8)) as? [[String: Any]])
        let offered = try #require(try DeltaVersions.published(fixture).patches?.first)
        #expect(entries.first { $0["productID"] as? String == DeltaVersions.productID }?["updateBytes"] as? Int == Int(offered.length), "\(status.output)")
        let before = fixture.nginx.requests().count
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("a precomputed patch made the new manifest"), "\(update.output)")
        let after = Array(fixture.nginx.requests().dropFirst(before))
        let archive = "\(try DeltaVersions.published(fixture).sha256).tar.zst"
        #expect(!after.contains { $0.request.contains(archive) }, "the archive was fetched: \(after.map(\.request))")
        #expect(!after.contains { $0.request.contains("manifests/") }, "the manifest was fetched: \(after.map(\.request))")
        #expect(after.filter { $0.request.contains("patches/") }.count == 1, "\(after.map(\.request))")
        try await Self.installedEqualsTheNewVersion(store, versions)
        // The publisher's report names the patch beside the chunks.
        let packed = fixture.root.appendingPathComponent("packed")
        let catalog = try await iapcontentOffPool(["catalog", packed.path, "--output", fixture.root.appendingPathComponent("site").path])
        #expect(catalog.status == 0 && catalog.output.contains("; with its patch: "), "\(catalog.output)")
    }

    @Test func aPatchThatFailsItsHashIsNotUsedAndTheUpdateFetchesTheChunks() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await Self.installFirstThenOfferAPatch(fixture, versions)
        let reference = try #require(try DeltaVersions.published(fixture).patches?.first)
        let served = fixture.nginx.root.appendingPathComponent(reference.path)
        var bytes = try Data(contentsOf: served)
        bytes[bytes.count - 10] ^= 0xFF  // the last file's frame: the hash says so before anything is decoded
        try bytes.write(to: served)
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("the patch is not used"), "\(update.output)")
        #expect(update.output.contains("update: fetching only what changed"), "\(update.output)")
        try await Self.installedEqualsTheNewVersion(store, versions)
    }

    /// Installs 1.0, offers the patch to 2.0 with its catalog entry changed by `lie` (the unsigned test catalog is
    /// rewritten in place), then updates: returns the update's `-vv` output and the requests nginx served for it,
    /// once the update succeeded and installed 2.0 exactly.
    static func updateWithALyingPatchEntry(_ lie: (inout PatchReference) -> Void) async throws -> (output: String, requests: [String]) {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await installFirstThenOfferAPatch(fixture, versions)
        let catalogFile = fixture.nginx.root.appendingPathComponent("catalog.json")
        var catalog = try Catalog.decoder.decode(Catalog.self, from: Data(contentsOf: catalogFile))
        lie(&catalog.products[0].patches![0])
        try catalog.encoded().write(to: catalogFile)
        let before = fixture.nginx.requests().count
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(!update.output.contains("a precomputed patch made the new manifest"), "\(update.output)")
        #expect(update.output.contains("update: fetching only what changed"), "\(update.output)")
        try await installedEqualsTheNewVersion(store, versions)
        return (update.output, fixture.nginx.requests().dropFirst(before).map(\.request))
    }

    /// A catalog that names a patch of a terabyte (or of no bytes): the client never asks for it and updates by chunks.
    @Test(arguments: [Int64(1) << 40, 0])
    func aPatchOfAnImpossibleLengthIsNeverFetched(_ length: Int64) async throws {
        let (output, requests) = try await Self.updateWithALyingPatchEntry { $0.length = length }
        #expect(output.contains("the patch is not used"), "\(output)")
        #expect(!requests.contains { $0.contains("patches/") }, "\(requests)")
    }

    /// A catalog from an http(s) server that names its patch on this machine's disk, at another scheme, or at an
    /// absolute path: the URL rule refuses the first two before any read, the last is asked of the catalog's own
    /// server (which has no such file); the update takes the chunks every time.
    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:1/x", "/etc/passwd"])
    func aPatchNamedOutsideTheCatalogsOriginIsNeverRead(_ path: String) async throws {
        let (_, requests) = try await Self.updateWithALyingPatchEntry { $0.path = path }
        // A path without a scheme is the catalog server's own (a 404 there); one with a scheme is never asked for.
        if path.contains("://") { #expect(!requests.contains { $0.contains("passwd") || $0.contains("/x ") }, "\(requests)") }
    }

    @Test func anInstalledFileChangedSinceIsFetchedByItsChunks() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await Self.installFirstThenOfferAPatch(fixture, versions)
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        let big = installed.appendingPathComponent("Contents/big.bin")
        let handle = try FileHandle(forWritingTo: big)
        try handle.seek(toOffset: 1 << 20)
        try handle.write(contentsOf: Data("damaged".utf8))
        try handle.close()
        let before = fixture.nginx.requests().count
        let update = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("a file of the patch is left to the chunks"), "\(update.output)")
        let after = Array(fixture.nginx.requests().dropFirst(before))
        let archive = "\(try DeltaVersions.published(fixture).sha256).tar.zst"
        #expect(after.contains { $0.request.contains(archive) }, "the changed file's chunks were not fetched: \(after.map(\.request))")
        try await Self.installedEqualsTheNewVersion(store, versions)
    }

    /// Killed (SIGKILL) while a patched update's tree is built (`prepare`: the patched files are in it, the plan not
    /// yet kept) or once every byte is in (`verify`: before the swap): the old version stays installed and whole, and
    /// the same command run again installs the new one exactly.
    @Test(arguments: ["prepare", "verify"])
    func aKillAtAnyStepLeavesTheOldVersionAndARerunFinishes(_ phase: String) async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await Self.installFirstThenOfferAPatch(fixture, versions)
        let arguments = ["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path]
        let killed = try await QueueCrashTests.runKilled(arguments, at: phase)
        #expect(killed.killed, "not killed at \(phase): \(killed.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description == "1.0")
        #expect(try diffTrees(versions.v1, installed).status == 0, "the old version was touched")
        let rerun = try await iapcontentOffPool(arguments)
        #expect(rerun.status == 0, "\(rerun.output)")
        try await Self.installedEqualsTheNewVersion(store, versions)
    }
}
