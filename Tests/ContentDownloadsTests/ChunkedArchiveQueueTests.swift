import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The queue installs a chunk-indexed archive in place: it fetches the manifest the signed catalog names, then
/// the archive's chunks straight into the tree that becomes the installed folder.
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

    @Test func theQueueFetchesTheManifestAndInstallsInPlace() throws {
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 3 << 20)
        try fixture.publish([maps], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let run = try iapcontent(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("manifest kept: the archive installs chunk by chunk"), "\(run.output)")
        #expect(run.output.contains("installed chunk by chunk while downloading"), "\(run.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: "com.example.maps"))
        #expect(try diffTrees(maps, installed).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
        let manifests = fixture.nginx.requests().filter { $0.request.contains("manifests/") }
        #expect(manifests.count == 1)
    }
}
