import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// `repair` fetches only the chunks of damaged and missing files and swaps the repaired folder in.
@Suite struct RepairTests {
    @Test func repairFetchesOnlyTheDamagedFilesChunks() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture, publishingNext: false)
        let id = DeltaVersions.productID
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let handle = try FileHandle(forUpdating: content.appendingPathComponent("Contents/big.bin"))
        try handle.seek(toOffset: 7 << 20)
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 100))
        try handle.close()
        try FileManager.default.removeItem(at: content.appendingPathComponent("Contents/levels/1.json"))
        try Data("stray".utf8).write(to: content.appendingPathComponent("Contents/stray.txt"))
        let before = try DeltaVersions.archiveTraffic(fixture).bytes

        let repair = try await iapcontentOffPool(["repair", id, "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(repair.status == 0, "\(repair.output)")
        #expect(repair.output.contains("repaired  Contents/big.bin") && repair.output.contains("restored  Contents/levels/1.json"), "\(repair.output)")
        #expect(repair.output.contains("removed   Contents/stray.txt"), "\(repair.output)")
        let repaired = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try diffTrees(versions.v1, repaired).status == 0)
        let fetched = try DeltaVersions.archiveTraffic(fixture).bytes - before
        let size = try DeltaVersions.archiveSize(fixture)
        #expect(fetched > 0 && fetched < size / 3, "repair fetched \(fetched) of \(size) bytes")

        let again = try await iapcontentOffPool(["repair", id, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(again.status == 0 && again.output.contains("intact, nothing to repair"), "\(again.output)")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func repairNeedsTheInstalledVersionInTheCatalog() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture, publishingNext: false)
        let id = DeltaVersions.productID
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        try FileManager.default.removeItem(at: content.appendingPathComponent("Contents/gone.txt"))
        try fixture.publish([versions.v1, versions.v2], chunked: true)
        let repair = try await iapcontentOffPool(["repair", id, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(repair.status == 1)
        #expect(repair.output.contains("not the installed 1.0; update instead"), "\(repair.output)")
        #expect(try Store(root: store).installedVersion(forProductID: id)?.description == "1.0")
    }
}

/// A repair has no transaction, yet its download shows in the queue's updates like any other.
@Suite struct RepairUpdatesTests {
    @Test func aRepairShowsInTheQueuesUpdatesUntilItIsInstalled() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let root = try await versions.installFirst(fixture, publishingNext: false)
        let id = DeltaVersions.productID
        let store = try Store(root: root)
        let content = try #require(store.contentURL(forProductID: id))
        try FileManager.default.removeItem(at: content.appendingPathComponent("Contents/levels/1.json"))
        let queue = try ContentQueue(store: store, catalog: fixture.catalog(), options: fastOptions())
        _ = try await queue.open()
        let updates = queue.updates
        let verification = try await queue.repair(productID: id)
        #expect(verification.missing == ["Contents/levels/1.json"])
        await queue.close()
        var seen: [ContentDownload] = []
        for await update in updates {
            if case .downloads(let downloads) = update { seen += downloads.filter { $0.productID == id } }
        }
        #expect(!seen.isEmpty, "the repair's download reached no listener")
        #expect(seen.allSatisfy { $0.transactionID == ContentDownload.noTransaction })
        let last = try #require(seen.last)
        #expect(last.state == .finished && last.contentURL == content, "\(last)")
    }

    @Test func aPurchaseWithoutATransactionIdentifierIsRefused() async throws {
        let fixture = try QueueFixture()
        let queue = try ContentQueue(store: fixture.store, catalog: nil)
        _ = try await queue.open()
        await #expect(throws: QueueError.emptyTransactionID(productID: "com.example.any")) {
            try await queue.add(VerifiedPurchase(transactionID: "", productID: "com.example.any"))
        }
        await queue.close()
    }
}
