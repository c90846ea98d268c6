import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// Records what a delegate-style observer is told.
final class RecordingObserver: ContentQueueObserver {
    let transactions = Mutex<[ContentTransaction]>([])
    let downloads = Mutex<[ContentDownload]>([])
    func updatedTransactions(_ transactions: [ContentTransaction]) async { self.transactions.withLock { $0 += transactions } }
    func updatedDownloads(_ downloads: [ContentDownload]) async { self.downloads.withLock { $0 += downloads } }
}

@Suite("Content queue: transactions, install, finish, restore, update", .serialized)
struct ContentQueueTests {
    @Test("download → install → contentURL is byte-identical to the packed folder (diff -r) → finish → history")
    func endToEnd() async throws {
        let fixture = try QueueFixture()
        let levels = try fixture.source("com.example.levels", version: "1.0")
        let music = try fixture.source("com.example.music", version: "2.1", size: 300 << 10)
        try fixture.publish([levels, music])
        let queue = try fixture.queue()
        let observer = RecordingObserver()
        await queue.setObserver(observer)
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-levels", productID: "com.example.levels"))
        try await queue.add(VerifiedPurchase(transactionID: "t-music", productID: "com.example.music"))

        let ended = await waitForDownloads(queue, ["t-levels", "t-music"])
        for (id, source) in [("t-levels", levels), ("t-music", music)] {
            let download = try #require(ended[id]?.downloads.first)
            #expect(download.state == .finished, "\(id): \(download.state) \(download.error?.message ?? "")")
            #expect(download.progress == 1)
            let url = try #require(download.contentURL)
            #expect(url == queue.contentURL(forProductID: download.productID))
            let diff = try diffTrees(source, url)
            #expect(diff.status == 0, "diff -r: \(diff.stdout)\(diff.stderr)")
        }
        #expect(queue.installedVersion(forProductID: "com.example.music") == ContentVersion("2.1"))
        // The archives are gone once installed; nothing is left in staging.
        #expect(fixture.stagingLeftovers().isEmpty)
        let transfers = try FileManager.default.contentsOfDirectory(atPath: fixture.store.transfersDirectory.path)
        #expect(transfers.isEmpty, "left in transfers/: \(transfers)")

        try await queue.finish("t-levels")
        try await queue.finish("t-music")
        #expect(await queue.transactions().isEmpty)
        await queue.close()

        let delivered = observer.transactions.withLock { $0 }
        #expect(delivered.filter { $0.state == .finished }.map(\.id).sorted() == ["t-levels", "t-music"])
        #expect(observer.downloads.withLock { $0 }.contains { $0.transactionID == "t-music" && $0.state == .finished && $0.contentURL != nil })
        let overview = try StoreOverview(store: fixture.store)
        #expect(overview.transactions.isEmpty)
        #expect(overview.history.map(\.transactionID).sorted() == ["t-levels", "t-music"])

        // Reopening re-delivers nothing: every transaction was finished.
        let reopened = try fixture.queue()
        #expect(try await reopened.open().isEmpty)
        await reopened.close()
    }

    @Test("finish is refused while a download is waiting, active or paused; reopen re-delivers it, still paused; cancel-and-finish")
    func finishRefusedWhileInFlight() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 256k;")
        let big = try fixture.source("com.example.big", version: "1.0", size: 3 << 20)
        try fixture.publish([big])
        let queue = try fixture.queue()
        try await queue.open()
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-big", productID: "com.example.big"))
        let download = try #require(transaction.downloads.first)
        #expect(download.state.isInFlight)
        #expect(download.contentURL == nil)
        await #expect(throws: QueueError.self) { try await queue.finish("t-big") }

        await queue.pause(download)
        #expect(await queue.transaction(id: "t-big")?.downloads.first?.state == .paused)
        do {
            try await queue.finish("t-big")
            Issue.record("finish must be refused while the download is paused")
        } catch {
            guard case .downloadsInFlight(let id, let downloads) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(id == "t-big")
            #expect(downloads == ["com.example.big paused"])
            #expect(error.description.contains("cancelDownloadsAndFinish"))
        }
        await queue.close()

        // "Add your observer at launch": the unfinished transaction comes back, its download still paused.
        let reopened = try fixture.queue()
        let observer = RecordingObserver()
        await reopened.setObserver(observer)
        let redelivered = try await reopened.open()
        #expect(redelivered.map(\.id) == ["t-big"])
        #expect(redelivered.first?.downloads.first?.state == .paused)
        #expect(observer.transactions.withLock { $0 }.map(\.id) == ["t-big"])
        try await Task.sleep(for: .milliseconds(500))
        #expect(await reopened.transaction(id: "t-big")?.downloads.first?.state == .paused)

        try await reopened.cancelDownloadsAndFinish("t-big")
        #expect(await reopened.transactions().isEmpty)
        #expect(reopened.contentURL(forProductID: "com.example.big") == nil)
        await reopened.close()
        #expect(try StoreOverview(store: fixture.store).history.map(\.transactionID) == ["t-big"])
        #expect(!FileManager.default.fileExists(atPath: fixture.store.partialFile(productID: "com.example.big").path))
    }

    @Test("restore re-delivers missing content; a newer catalog version is an update, and a new purchase installs it")
    func restoreAndUpdate() async throws {
        let fixture = try QueueFixture()
        let v1 = try fixture.source("com.example.levels", version: "1.0")
        let other = try fixture.source("com.example.other", version: "1.0")
        try fixture.publish([v1, other])
        var queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t1", productID: "com.example.levels"))
        try await queue.add(VerifiedPurchase(transactionID: "t2", productID: "com.example.other"))
        _ = await waitForDownloads(queue, ["t1", "t2"])
        try await queue.finish("t1")
        try await queue.finish("t2")

        // Up to date: nothing to restore.
        #expect(try await queue.restoreCompletedTransactions().isEmpty)
        // Content deleted: restore brings exactly that product back.
        #expect(try await queue.deleteContent(forProductID: "com.example.levels"))
        #expect(queue.contentURL(forProductID: "com.example.levels") == nil)
        let restored = try await queue.restoreCompletedTransactions()
        #expect(restored.map(\.productID) == ["com.example.levels"])
        #expect(restored.first?.kind == .restore)
        #expect(restored.first?.state == .restored)
        let restoredID = try #require(restored.first?.id)
        let ended = await waitForDownloads(queue, [restoredID])
        let url = try #require(ended[restoredID]?.downloads.first?.contentURL)
        #expect(try diffTrees(v1, url).status == 0)
        try await queue.finish(restoredID)
        #expect(await queue.availableUpdates().isEmpty)
        await queue.close()

        // Version 2 is published: an update is available for levels only.
        let v2 = try fixture.source("com.example.levels", version: "2.0", size: 100 << 10)
        try fixture.publish([v2])
        queue = try fixture.queue()
        try await queue.open()
        let updates = await queue.availableUpdates()
        #expect(updates.map(\.productID) == ["com.example.levels"])
        #expect(updates.first?.installedVersion == ContentVersion("1.0") && updates.first?.catalogVersion == ContentVersion("2.0"))
        #expect(updates.first?.downloadBytes == nil, "measured only by measuredUpdates()")
        let measured = await queue.measuredUpdates()
        // Installed from a one-frame archive (no kept manifest): the update is the whole archive.
        #expect(measured.first?.downloadBytes == measured.first?.archiveBytes && (measured.first?.archiveBytes ?? 0) > 0)
        // Restore also fetches content older than the catalog's.
        let restoredUpdate = try await queue.restoreCompletedTransactions()
        #expect(restoredUpdate.map(\.productID) == ["com.example.levels"])
        let id = try #require(restoredUpdate.first?.id)
        let updated = await waitForDownloads(queue, [id])
        let updatedURL = try #require(updated[id]?.downloads.first?.contentURL)
        #expect(try diffTrees(v2, updatedURL).status == 0)
        #expect(queue.installedVersion(forProductID: "com.example.levels") == ContentVersion("2.0"))
        #expect(await queue.availableUpdates().isEmpty)
        try await queue.finish(id)
        await queue.close()
        #expect(fixture.stagingLeftovers().isEmpty)
    }
}
