import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The queue's receive caps reach a running transfer. nginx sends at most 2 MB/s, so the 3 MiB archive takes
/// about 1.1 s uncapped (measured) and is still arriving when the cap is set; at 512 KiB/s it took about 4 s, and
/// cannot take less than 2.4 s even counting what libcurl reads in one burst. A lower bound only: a slow machine
/// makes it slower, never faster.
@Suite("Queue rate limits", .serialized)
struct QueueRateLimitTests {
    @Test func theQueueCapSlowsARunningDownloadAndADownloadCapIsKept() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 2m;")
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 3 << 20)
        try fixture.publish([maps])
        let queue = try fixture.queue()
        try await queue.open()
        let started = ContinuousClock.now
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-maps", productID: "com.example.maps"))
        let download = try #require(transaction.downloads.first)

        try await Task.sleep(for: .milliseconds(300))
        await queue.setRateLimit(bytesPerSecond: 512 << 10)
        await queue.setRateLimit(download, bytesPerSecond: 4 << 20)
        #expect(try fixture.store.ledger().record("com.example.maps")?.maxBytesPerSecond == 4 << 20)
        let ended = await waitForDownloads(queue, ["t-maps"])
        let elapsed = ContinuousClock.now - started
        let final = try #require(ended["t-maps"]?.downloads.first)
        #expect(final.state == .finished, "\(final.state) \(final.error?.message ?? "")")
        #expect(elapsed >= .milliseconds(2400), "3 MiB under a 512 KiB/s cap set after 0.3 s finished in \(elapsed)")
        await queue.close()
    }
}
