import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// A catalog in a local folder (a USB stick, a mounted share, an offline machine), named by its path or by a
/// `file://` URL: chunk-indexed archives install, update and repair from it as from a web server. libcurl cannot
/// pause a `file://` transfer, so the scheduler never asks it to.
@Suite struct LocalOriginTests {
    @Test func installUpdateAndRepairFromACatalogInALocalFolder() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let id = DeltaVersions.productID
        try fixture.publish([versions.v1], chunked: true)
        let catalog = fixture.nginx.root.appendingPathComponent("catalog.json")
        let store = fixture.root.appendingPathComponent("local-store")

        let install = try await iapcontentOffPool(["download", id, "--catalog", catalog.path, "--store", store.path])
        #expect(install.status == 0, "\(install.output)")
        #expect(try diffTrees(versions.v1, try #require(try Store(root: store).contentURL(forProductID: id))).status == 0)

        try fixture.publish([versions.v1, versions.v2], chunked: true)
        let update = try await iapcontentOffPool(["download", id, "--catalog", catalog.absoluteString, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("update: fetching only what changed"), "\(update.output)")
        let updated = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try diffTrees(versions.v2, updated).status == 0)

        let handle = try FileHandle(forUpdating: updated.appendingPathComponent("Contents/big.bin"))
        try handle.seek(toOffset: 7 << 20)
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 100))
        try handle.close()
        try FileManager.default.removeItem(at: updated.appendingPathComponent("Contents/levels/1.json"))
        let repair = try await iapcontentOffPool(["repair", id, "--catalog", catalog.path, "--store", store.path])
        #expect(repair.status == 0, "\(repair.output)")
        #expect(try diffTrees(versions.v2, try #require(try Store(root: store).contentURL(forProductID: id))).status == 0)
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(fixture.nginx.requests().isEmpty, "nothing went through the web server")
    }

    @Test func aLocalOriginIgnoresTheNetworksRateCap() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        try fixture.publish([versions.v1], chunked: true)
        let catalog = fixture.nginx.root.appendingPathComponent("catalog.json")
        let store = fixture.root.appendingPathComponent("capped-store")
        let run = try await iapcontentOffPool([
            "download", DeltaVersions.productID, "--catalog", catalog.path, "--store", store.path, "--max-rate", "200000",
        ])
        #expect(run.status == 0, "\(run.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v1, installed).status == 0)
    }
}
