import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// A store on a 3 MiB tmpfs: a download that cannot fit fails at once with a clear
/// "insufficient space" error naming the bytes needed, and succeeds once space is freed.
/// Where a tmpfs cannot be mounted the tests are reported as skipped (failed when `CI` is set: ``Tmpfs``).
@Suite("Content queue: disk full", .serialized, .needsTmpfs)
struct QueueDiskSpaceTests {
    @Test("preflight (archive + uncompressed size) fails clearly; success after space is freed")
    func diskFullThenFreed() async throws {
        let fixture = try QueueFixture()
        let tmpfs = try TmpfsMount(size: "3m")
        defer { tmpfs.unmount() }
        let mountPoint = tmpfs.url
        let storeOffTmpfs = fixture.store
        fixture.store = try Store(root: tmpfs.appending("store", isDirectory: true))
        // Runs before the unmount: the fixture's reference keeps the store's journal and locks open on the tmpfs.
        defer { fixture.store = storeOffTmpfs }
        let source = try fixture.source("com.example.huge", version: "1.0", size: 1 << 20)
        try fixture.publish([source])
        let filler = mountPoint.appendingPathComponent("filler.bin")
        try Data(count: 2 << 20).write(to: filler)

        let queue = try fixture.queue()
        try await queue.open()
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-huge", productID: "com.example.huge"))
        let download = try #require(transaction.downloads.first)
        #expect(download.state == .failed)
        let error = try #require(download.error)
        #expect(error.code == .insufficientSpace)
        #expect(error.message.contains("more bytes needed"), "\(error.message)")
        #expect(error.message.contains(fixture.store.root.path))
        #expect(queue.contentURL(forProductID: "com.example.huge") == nil)
        // Failed is not in flight: the caller may finish, but here it retries after freeing space.

        try FileManager.default.removeItem(at: filler)
        try await queue.start(download)
        let ended = await waitForDownloads(queue, ["t-huge"])
        let finished = try #require(ended["t-huge"]?.downloads.first)
        #expect(finished.state == .finished, "\(finished.state) \(finished.error?.message ?? "")")
        let url = try #require(finished.contentURL)
        #expect(try diffTrees(source, url).status == 0)
        try await queue.finish("t-huge")
        await queue.close()
    }

    @Test("ENOSPC while extracting: failed with insufficientSpace, archive kept; after freeing space a reopen installs it without downloading again")
    func enospcDuringInstall() async throws {
        let fixture = try QueueFixture()
        let tmpfs = try TmpfsMount(size: "6m")
        defer { tmpfs.unmount() }
        let mountPoint = tmpfs.url
        let storeOffTmpfs = fixture.store
        fixture.store = try Store(root: tmpfs.appending("store", isDirectory: true))
        // Runs before the unmount: the fixture's reference keeps the store's journal and locks open on the tmpfs.
        defer { fixture.store = storeOffTmpfs }
        let source = try fixture.source("com.example.tight", version: "1.0", size: 1 << 20)
        try fixture.publish([source])
        func queueWithoutPreflight() throws -> ContentQueue {
            try ContentQueue(
                store: fixture.store, catalog: try fixture.catalog(), options: fastOptions(),
                installOptions: ContentInstaller.Options(spacePreflight: nil))
        }

        var queue = try queueWithoutPreflight()
        try await queue.open()
        // Room for the archive (~1 MiB) but not for the extracted content next to it.
        let filler = mountPoint.appendingPathComponent("filler.bin")
        let free = SpacePreflight.availableBytes(atPath: mountPoint.path)
        try Data(count: Int(free) - (1536 << 10)).write(to: filler)
        try await queue.add(VerifiedPurchase(transactionID: "t-tight", productID: "com.example.tight"))
        let failed = try #require(await waitForDownloads(queue, ["t-tight"])["t-tight"]?.downloads.first)
        #expect(failed.state == .failed)
        #expect(failed.error?.code == .insufficientSpace, "\(String(describing: failed.error))")
        #expect(failed.error?.message.contains("bytes needed") == true)
        #expect(queue.contentURL(forProductID: "com.example.tight") == nil)
        #expect(fixture.stagingLeftovers().isEmpty)
        await queue.close()
        let archive = fixture.store.archiveFile(productID: "com.example.tight", version: "1.0")
        #expect(FileManager.default.fileExists(atPath: archive.path), "the verified archive must be kept")

        try FileManager.default.removeItem(at: filler)
        queue = try queueWithoutPreflight()
        let redelivered = try await queue.open()
        let download = try #require(redelivered.first?.downloads.first)
        #expect(download.state == .finished, "\(download.state) \(download.error?.message ?? "")")
        let url = try #require(download.contentURL)
        #expect(try diffTrees(source, url).status == 0)
        #expect(fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }.count == 1)
        try await queue.finish("t-tight")
        await queue.close()
    }

    @Test("a one-frame archive that fits but unpacks past the free space: refused before any archive byte is fetched, nothing under transfers/; installs once space is freed")
    func wholeArchiveThatUnpacksPastTheFreeSpace() async throws {
        let fixture = try QueueFixture()
        let tmpfs = try TmpfsMount(size: "12m")
        defer { tmpfs.unmount() }
        let storeOffTmpfs = fixture.store
        fixture.store = try Store(root: tmpfs.appending("store", isDirectory: true))
        // Runs before the unmount: the fixture's reference keeps the store's journal and locks open on the tmpfs.
        defer { fixture.store = storeOffTmpfs }
        // 8 MiB of zeros packs to a few KiB: the download itself fits anywhere, the content does not.
        let productID = "com.example.zeros"
        let source = fixture.root.appendingPathComponent("sources/\(productID)-1.0", isDirectory: true)
        try PackageFixture.make(at: source, productID: productID, version: "1.0", files: [
            "Contents/version.txt": Data("\(productID) 1.0\n".utf8),
            "Contents/zeros.bin": Data(count: 8 << 20),
        ])
        try fixture.publish([source])  // one frame, no chunk index: the whole archive
        let product = try #require(try fixture.catalog().catalog.product(productID))
        #expect(product.manifest == nil)
        let filler = tmpfs.appending("filler.bin")
        try Data(count: 6 << 20).write(to: filler)
        let available = SpacePreflight.availableBytes(atPath: tmpfs.path)
        try #require(product.length * 8 < available && product.uncompressedSize > available,
                     "archive \(product.length), content \(product.uncompressedSize), free \(available)")

        let queue = try fixture.queue()
        try await queue.open()
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-zeros", productID: productID))
        let download = try #require(transaction.downloads.first)
        #expect(download.state == .failed)
        #expect(download.error?.code == .insufficientSpace, "\(String(describing: download.error))")
        #expect(download.error?.message.contains("more bytes needed") == true, "\(download.error?.message ?? "")")
        #expect(queue.contentURL(forProductID: productID) == nil)
        #expect(fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }.isEmpty, "\(fixture.nginx.requests())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.store.transfersDirectory.path) == [])

        try FileManager.default.removeItem(at: filler)
        try await queue.start(download)
        let finished = try #require(await waitForDownloads(queue, ["t-zeros"])["t-zeros"]?.downloads.first)
        #expect(finished.state == .finished, "\(finished.state) \(finished.error?.message ?? "")")
        let url = try #require(finished.contentURL)
        #expect(try diffTrees(source, url).status == 0)
        try await queue.finish("t-zeros")
        await queue.close()
    }

    @Test("a chunk plan whose files do not fit: refused before any range is asked for, no tree, placed-chunk log or plan in transfers/; installs once space is freed")
    func chunkPlanPastTheFreeSpace() async throws {
        let fixture = try QueueFixture()
        // A plan needs room for the files it writes (no archive is kept), with the queue's margin (none here).
        let tmpfs = try TmpfsMount(size: "80m")
        defer { tmpfs.unmount() }
        let storeOffTmpfs = fixture.store
        fixture.store = try Store(root: tmpfs.appending("store", isDirectory: true))
        // Runs before the unmount: the fixture's reference keeps the store's journal and locks open on the tmpfs.
        defer { fixture.store = storeOffTmpfs }
        let productID = "com.example.planned"
        let source = try fixture.source(productID, version: "1.0", size: 3 << 20)
        try fixture.publish([source], chunked: true)
        let product = try #require(try fixture.catalog().catalog.product(productID))
        #expect(product.manifest != nil)
        // Half the content's size free: the files the plan writes do not fit.
        let filler = tmpfs.appending("filler.bin")
        try Data(count: Int(SpacePreflight.availableBytes(atPath: tmpfs.path)) - Int(product.uncompressedSize / 2)).write(to: filler)
        let available = SpacePreflight.availableBytes(atPath: tmpfs.path)
        try #require(product.uncompressedSize > available, "content \(product.uncompressedSize), free \(available)")

        let queue = try fixture.queue()
        try await queue.open()
        let transaction = try await queue.add(VerifiedPurchase(transactionID: "t-planned", productID: productID))
        var download = try #require(transaction.downloads.first)
        if download.state.isInFlight {
            download = try #require(await waitForDownloads(queue, ["t-planned"])["t-planned"]?.downloads.first)
        }
        #expect(download.state == .failed)
        #expect(download.error?.code == .insufficientSpace, "\(String(describing: download.error))")
        #expect(queue.contentURL(forProductID: productID) == nil)
        let archiveRequests = fixture.nginx.requests().filter { $0.request.contains(".tar.zst") || $0.range != "-" }
        #expect(archiveRequests.isEmpty, "\(fixture.nginx.requests())")
        let transfers = fixture.store.transfersDirectory.path
        #expect(try FileManager.default.contentsOfDirectory(atPath: transfers) == [], "left in transfers/")
        #expect(!FileManager.default.fileExists(
            atPath: fixture.store.updateTreeDirectory(productID: productID, version: "1.0").path))

        try FileManager.default.removeItem(at: filler)
        try await queue.start(download)
        let finished = try #require(await waitForDownloads(queue, ["t-planned"])["t-planned"]?.downloads.first)
        #expect(finished.state == .finished, "\(finished.state) \(finished.error?.message ?? "")")
        let url = try #require(finished.contentURL)
        #expect(try diffTrees(source, url).status == 0)
        #expect(fixture.nginx.requests().contains { $0.range != "-" || $0.request.contains(".tar.zst") })
        try await queue.finish("t-planned")
        await queue.close()
    }
}
