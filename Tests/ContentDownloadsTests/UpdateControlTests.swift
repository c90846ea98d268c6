import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Pause, resume and cancel of an update that fetches only what changed: its download counts the bytes it
/// fetches (not the archive), a pause keeps what was installed, a cancel deletes the update's tree and plan,
/// and the installed version is untouched until the swap.
@Suite("Updates: pause, resume, cancel")
struct UpdateControlTests {
    /// A queue on the CLI store with 1.0 installed and its update to 2.0 added; nginx sends range replies (the
    /// update's) at 128 KiB/s, so the update's 1.3 MB take seconds whatever the test task's delay.
    static func startUpdate() async throws -> (QueueFixture, DeltaVersions, ContentQueue) {
        let fixture = try QueueFixture(locationConfig: "if ($http_range) { set $limit_rate 128k; }")
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        var options = fastOptions(stall: 300)
        // One connection at 128 KiB/s: the update is still running when a test pauses or cancels it (eight
        // connections, each with nginx's first-second burst, can finish it first).
        options.transfer.connections = 1
        options.transfer.maxConnections = 1
        let queue = try ContentQueue(store: try Store(root: store), catalog: try fixture.catalog(), options: options)
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-update", productID: DeltaVersions.productID))
        return (fixture, versions, queue)
    }

    /// Some chunks in place, not all: progress moves a chunk at a time, as the chunks are placed (what a pause keeps).
    static func midway(_ download: ContentDownload) -> Bool {
        download.snapshot.downloadedBytes > 0 && download.progress < 1 && download.state == .active
    }

    /// Polls the update's download for at most 90 s.
    static func wait(_ queue: ContentQueue, until done: (ContentDownload) -> Bool) async throws -> ContentDownload? {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            if let download = await queue.transaction(id: "t-update")?.downloads.first, done(download) { return download }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func pauseKeepsTheInstalledVersionAndResumeFinishesTheUpdate() async throws {
        let (fixture, versions, queue) = try await Self.startUpdate()
        let running = try #require(try await Self.wait(queue, until: Self.midway))
        let archive = try DeltaVersions.archiveSize(fixture)
        #expect(running.expectedContentLength > 0 && running.expectedContentLength < Int64(archive) / 4,
                "an update's download is the bytes it fetches: \(running.expectedContentLength) of \(archive)")
        #expect(running.progress > 0 && running.progress < 1)
        await queue.pause(running)
        #expect(try await Self.wait(queue) { $0.state == .paused } != nil)
        let content = try #require(queue.contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v1, content).status == 0, "the installed version while the update is paused")

        await queue.resume(running)
        let finished = try #require(try await Self.wait(queue) { !$0.state.isInFlight && $0.state != .paused })
        #expect(finished.state == .finished, "\(finished.error?.message ?? "")")
        let installed = try #require(finished.contentURL)
        #expect(try diffTrees(versions.v2, installed).status == 0)
        await queue.close()
        let sha = try DeltaVersions.published(fixture).sha256
        let ranges = fixture.nginx.requests().filter { $0.request.contains(sha) }.map(\.range)
        #expect(ranges.allSatisfy { $0.hasPrefix("bytes=") && $0.contains("-") && !$0.hasSuffix("-") }, "\(ranges)")
    }

    @Test func anUpdateWhoseTreeIsBuiltAnewStartsItsDownloadAtZero() async throws {
        let (fixture, versions, queue) = try await Self.startUpdate()
        let running = try #require(try await Self.wait(queue, until: Self.midway))
        await queue.pause(running)
        #expect(try await Self.wait(queue) { $0.state == .paused } != nil)
        await queue.close()
        let store = queue.store
        let durable = try #require(try store.ledger().record(DeltaVersions.productID)).durableOffset
        #expect(durable > 0, "the pause kept the first chunks")
        // The plan is lost (as when a finished update found a file wrong): the next run builds the tree anew, and the
        // bytes the paused attempt had fetched belonged to the old tree.
        let tree = store.updateTreeDirectory(productID: DeltaVersions.productID, version: "2.0").path
        try FileManager.default.removeItem(atPath: tree + ".delta")
        let resume = try await iapcontentOffPool(["resume", DeltaVersions.productID, "--store", store.root.path])
        #expect(resume.status == 0, "\(resume.output)")
        let rerun = try await iapcontentOffPool(["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.root.path])
        #expect(rerun.status == 0, "\(rerun.output)")
        let installed = try #require(store.contentURL(forProductID: DeltaVersions.productID))
        #expect(try diffTrees(versions.v2, installed).status == 0)
    }

    @Test func cancelDeletesTheUpdatesTreeAndKeepsTheInstalledVersion() async throws {
        let (fixture, versions, queue) = try await Self.startUpdate()  // the fixture owns nginx and the folders
        let running = try #require(try await Self.wait(queue, until: Self.midway))
        await queue.cancel(running)
        #expect(try await Self.wait(queue) { $0.state == .cancelled } != nil)
        await queue.close()
        let store = queue.store
        let tree = store.updateTreeDirectory(productID: DeltaVersions.productID, version: "2.0").path
        #expect(!FileManager.default.fileExists(atPath: tree))
        #expect(!FileManager.default.fileExists(atPath: tree + ".delta"))
        let content = try #require(store.contentURL(forProductID: DeltaVersions.productID))
        #expect(store.installedVersion(forProductID: DeltaVersions.productID)?.description == "1.0")
        #expect(try diffTrees(versions.v1, content).status == 0)
        withExtendedLifetime(fixture) {}
    }
}
