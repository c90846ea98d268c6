import ContentDelivery
@testable import ContentDownloads
import Foundation
import Testing
import TestSupport

/// Waits (up to 60 s) until `queue` has `count` listeners: a waiting task has subscribed.
func waitForListeners(_ queue: ContentQueue, count: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while queue.published.listenerCount != count, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    #expect(queue.published.listenerCount == count)
}

@Suite("Queue: installed(productID:)", .serialized)
struct QueueInstalledTests {
    @Test("returns the content URL once installed, and at once when it already is")
    func returnsTheContentURL() async throws {
        let fixture = try QueueFixture()
        let levels = try fixture.source("com.example.levels", version: "1.0", size: 300 << 10)
        try fixture.publish([levels])
        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t1", productID: "com.example.levels"))
        let url = try await queue.installed(productID: "com.example.levels")
        #expect(url == queue.contentURL(forProductID: "com.example.levels"))
        #expect(try diffTrees(levels, url).status == 0)
        #expect(try await queue.installed(productID: "com.example.levels") == url)  // finished download
        try await queue.finish("t1")
        #expect(try await queue.installed(productID: "com.example.levels") == url)  // installed at the catalog's version
        #expect(queue.published.listenerCount == 0)
        await queue.close()

        let reopened = try fixture.queue()
        try await reopened.open()
        #expect(try await reopened.installed(productID: "com.example.levels") == url)
        await #expect(throws: QueueError.noTransaction(productID: "com.example.other")) {
            try await reopened.installed(productID: "com.example.other")
        }
        await reopened.close()
    }

    @Test func throwsTheDownloadError() async throws {
        let fixture = try QueueFixture()
        let catalog = try fixture.publish([try fixture.source("com.example.gone", version: "1.0")])
        let path = try #require(catalog.product("com.example.gone")?.path)
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent(path))  // the server answers 404
        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t1", productID: "com.example.gone"))
        for _ in 0..<2 {  // while it fails, then once it has failed
            do {
                let url = try await queue.installed(productID: "com.example.gone")
                Issue.record("installed \(url) from a missing archive")
            } catch let error as DownloadError {
                #expect(error.code == .httpStatus)
                #expect(error.message.contains("HTTP 404"))
            }
        }
        await queue.close()
    }

    @Test func throwsWhenTheDownloadIsCancelledOrTheQueueCloses() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 128k;")
        try fixture.publish([
            try fixture.source("com.example.big", version: "1.0", size: 3 << 20),
            try fixture.source("com.example.other", version: "1.0", size: 3 << 20),
        ])
        let queue = try fixture.queue()
        try await queue.open()
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-big", productID: "com.example.big"))
        try await queue.add(VerifiedPurchase(transactionID: "t-other", productID: "com.example.other"))
        let waiting = Task { try await queue.installed(productID: "com.example.big") }
        try await waitForListeners(queue, count: 1)
        await queue.cancel(try #require(transaction.downloads.first))
        await #expect(throws: QueueError.downloadCancelled(productID: "com.example.big")) { try await waiting.value }

        let closing = Task { try await queue.installed(productID: "com.example.other") }
        try await waitForListeners(queue, count: 1)
        await queue.close()
        await #expect(throws: QueueError.closed(productID: "com.example.other")) { try await closing.value }
    }

    @Test("honours task cancellation: throws CancellationError and removes its listener")
    func honoursTaskCancellation() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 128k;")
        try fixture.publish([try fixture.source("com.example.big", version: "1.0", size: 3 << 20)])
        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-big", productID: "com.example.big"))
        let waiting = Task { try await queue.installed(productID: "com.example.big") }
        try await waitForListeners(queue, count: 1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(queue.published.listenerCount == 0)
        #expect(await queue.transaction(id: "t-big")?.downloads.first?.state.isInFlight == true)  // the download goes on
        await queue.close()
    }
}
