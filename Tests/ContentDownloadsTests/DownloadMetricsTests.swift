import ContentDelivery
import ContentDownloads
import Foundation
import Metrics
import MetricsTestKit
import Testing
import TestSupport

/// With a metrics backend bootstrapped, a download reports its bytes, its finish, the install's duration and the
/// active-transfer gauge. (One backend per process: other suites running alongside may add to the same counters,
/// so the checks are lower bounds.)
@Suite struct DownloadMetricsTests {
    static let backend: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    @Test func aDownloadReportsBytesFinishInstallTimeAndActiveTransfers() async throws {
        let metrics = Self.backend
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.metered", version: "1.0", size: 1 << 20)
        let catalog = try fixture.publish([maps], chunked: true)
        let length = try #require(catalog.product("com.example.metered")?.length)
        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-metered", productID: "com.example.metered"))
        let ended = await waitForDownloads(queue, ["t-metered"])
        #expect(ended["t-metered"]?.downloads.first?.state == .finished)
        await queue.close()

        #expect(try metrics.expectCounter("iapcontent_download_bytes").totalValue >= length)
        #expect(try metrics.expectCounter("iapcontent_downloads_finished").totalValue >= 1)
        #expect(try metrics.expectTimer("iapcontent_install_duration").values.count >= 1)
        #expect(try metrics.expectGauge("iapcontent_downloads_active").values.contains(1))
    }
}
