import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Today's client installs a chunk-indexed archive as it is: one standard `tar.zst` of several frames,
/// extracted while it downloads and checked against the catalog's whole-archive SHA-256.
@Suite struct ChunkedArchiveQueueTests {
    @Test func aChunkedArchiveDownloadsAndInstallsByteIdentical() async throws {
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 9 << 20)
        let catalog = try fixture.publish([maps], chunked: true)
        let reference = try #require(catalog.products.first?.manifest)
        let manifestData = try Data(contentsOf: fixture.nginx.root.appendingPathComponent(reference.path))
        #expect((try PackageManifest.decode(manifestData).chunks?.count ?? 0) >= 3)

        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-maps", productID: "com.example.maps"))
        let ended = await waitForDownloads(queue, ["t-maps"])
        let download = try #require(ended["t-maps"]?.downloads.first)
        #expect(download.state == .finished, "\(download.state) \(download.error?.message ?? "")")
        let diff = try diffTrees(maps, try #require(download.contentURL))
        #expect(diff.status == 0, "diff -r: \(diff.stdout)\(diff.stderr)")
        await queue.close()
    }
}
