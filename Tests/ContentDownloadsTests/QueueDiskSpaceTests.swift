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
}

