import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// The install that follows a download: it extracts while bytes arrive, applies every entry rule
/// header by header, and succeeds only once the transfer has verified the whole archive.
@Suite("Install: overlapped with the download")
struct OverlappedInstallTests {
    /// Plays the transfer: writes `bytes` into the partial file in chunks, publishing each.
    final class FakeTransfer: Sendable {
        let partial: URL
        let archive: URL
        let bytes: Data
        let feed: GrowingArchive

        init(partial: URL, archive: URL, bytes: Data, feed: GrowingArchive) {
            self.partial = partial
            self.archive = archive
            self.bytes = bytes
            self.feed = feed
            _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
        }

        /// Appends bytes `[from, to)` and publishes the new length.
        func write(from: Int, to: Int) throws {
            let handle = try FileHandle(forWritingTo: partial)
            try handle.seek(toOffset: UInt64(from))
            try handle.write(contentsOf: bytes[from..<to])
            try handle.close()
            feed.published(Int64(to))
        }

        /// What the transfer does after the SHA-256 matched: rename, then complete.
        func verify() throws {
            try FileManager.default.moveItem(at: partial, to: archive)
            feed.complete()
        }
    }

    static let files: [String: Data] = [
        "version.txt": Data("version 2\n".utf8),
        "levels/1.json": Data("{\"level\":1}".utf8),
        "art/big.bin": PackageFixture.bytes(count: 3 << 20, seed: 7),
        "art/small.bin": PackageFixture.bytes(count: 5000, seed: 8),
    ]

    /// Writes an archive and returns its bytes and catalog entry.
    static func archive(
        _ fixture: borrowing InstallFixture, _ builder: TestArchiveBuilder, version: String = "2"
    ) throws -> (Data, CatalogProduct) {
        let (url, product) = try fixture.product(builder, name: "source-\(UUID().uuidString).tar.zst", version: version)
        let bytes = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: url)
        return (bytes, product)
    }

    /// The good version-2 package of ``files``, zstd-compressed.
    static func goodArchive(_ fixture: borrowing InstallFixture) throws -> (Data, CatalogProduct) {
        var builder = TestArchiveBuilder.package(productID: InstallFixture.productID, version: "2", files: Self.files)
        builder.zstd = true
        return try archive(fixture, builder)
    }

    static func start(_ fixture: borrowing InstallFixture, product: CatalogProduct, bytes: Data) -> (OverlappedInstall, FakeTransfer) {
        let partial = fixture.archives.appendingPathComponent("download.partial")
        let archive = fixture.archives.appendingPathComponent("download.tar.zst")
        let install = OverlappedInstall(
            product: product, store: fixture.store, partialPath: partial.path, archivePath: archive.path,
            options: InstallSettings(InstallFixture.options))
        return (install, FakeTransfer(partial: partial, archive: archive, bytes: bytes, feed: install.feed))
    }

    /// Waits (bounded, without blocking a cooperative thread) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<400 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return condition()
    }

    @Test("extracts while the bytes arrive; nothing is live until the archive is verified, then the swap installs it")
    func extractsWhileArriving() async throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        let (bytes, product) = try Self.goodArchive(fixture)
        let (install, transfer) = Self.start(fixture, product: product, bytes: bytes)

        // All but the last 1000 bytes arrive: the files before the end are already in staging.
        try transfer.write(from: 0, to: bytes.count / 2)
        try transfer.write(from: bytes.count / 2, to: bytes.count - 1000)
        let staged = await Self.eventually {
            fixture.stagingNames().contains { name in
                FileManager.default.fileExists(atPath: fixture.store.stagingDirectory
                    .appendingPathComponent(name).appendingPathComponent("Contents/art/big.bin").path)
            }
        }
        #expect(staged, "the big file should be extracted before the download ends")
        // The installed version is still the old one.
        #expect(try String(contentsOf: fixture.contentFolder.appendingPathComponent("Contents/version.txt"), encoding: .utf8) == "version 1\n")

        try transfer.write(from: bytes.count - 1000, to: bytes.count)
        try transfer.verify()
        guard case .success(let staging) = await install.result() else {
            Issue.record("the overlapped extraction should succeed")
            return
        }
        let url = try ContentInstaller.commit(
            staging, product: product, store: fixture.store, archivePath: transfer.archive.path, options: InstallFixture.options)
        for (path, data) in Self.files {
            #expect(try Data(contentsOf: url.appendingPathComponent("Contents/" + path)) == data, "\(path)")
        }
        #expect(fixture.stagingNames().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: transfer.archive.path), "the archive is removed after the install")
    }

    @Test("an abandoned attempt (pause, failure, restart) fails and deletes its staging folder")
    func abandonedAttemptCleansUp() async throws {
        let fixture = try InstallFixture()
        let (bytes, product) = try Self.goodArchive(fixture)
        let (install, transfer) = Self.start(fixture, product: product, bytes: bytes)
        try transfer.write(from: 0, to: bytes.count / 2)
        install.feed.abandon()
        guard case .failure(let error) = await install.result() else {
            Issue.record("an abandoned attempt must not produce an install")
            return
        }
        #expect(error.description.contains("stopped"), "\(error)")
        #expect(fixture.stagingNames().isEmpty)
        #expect(fixture.store.contentURL(forProductID: InstallFixture.productID) == nil)
    }

    @Test("a fully extracted archive that is never verified is not used")
    func unverifiedArchiveIsNotUsed() async throws {
        let fixture = try InstallFixture()
        let (bytes, product) = try Self.goodArchive(fixture)
        let (install, transfer) = Self.start(fixture, product: product, bytes: bytes)
        try transfer.write(from: 0, to: bytes.count)  // every byte, but the SHA-256 check failed
        install.feed.abandon()
        guard case .failure = await install.result() else {
            Issue.record("an archive whose hash never matched must not be installed")
            return
        }
        #expect(fixture.stagingNames().isEmpty)
    }

    @Test("a link entry is refused while streaming, before anything of it is written")
    func hostileEntryRefusedWhileStreaming() async throws {
        let fixture = try InstallFixture()
        var builder = TestArchiveBuilder()
        builder.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: InstallFixture.productID, version: "2"))
        builder.directory("Contents/")
        builder.symlink("Contents/escape", target: "../../sentinel/victim")
        builder.file("Contents/after.txt", Data("after\n".utf8))
        builder.zstd = true
        let (bytes, product) = try Self.archive(fixture, builder)
        let (install, transfer) = Self.start(fixture, product: product, bytes: bytes)
        try transfer.write(from: 0, to: bytes.count)
        try transfer.verify()  // the decoder may wait for the end of the stream before it yields the header
        guard case .failure(let error) = await install.result() else {
            Issue.record("a symlink entry must be refused")
            return
        }
        guard case .unsafeEntry(let path, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(path == "Contents/escape")
        #expect(fixture.stagingNames().isEmpty)
        #expect(try String(contentsOf: fixture.sentinel.appendingPathComponent("victim"), encoding: .utf8) == "do not touch\n")
    }

    @Test("a size lie stops one byte past the declared size while streaming")
    func sizeLieStopsWhileStreaming() async throws {
        let fixture = try InstallFixture()
        let (bytes, real) = try Self.goodArchive(fixture)
        // The catalog promises less than the archive holds.
        let product = CatalogProduct(
            productID: real.productID, contentVersion: real.contentVersion, path: real.path, length: real.length,
            sha256: real.sha256, uncompressedSize: 1 << 20, entryCount: real.entryCount)
        let (install, transfer) = Self.start(fixture, product: product, bytes: bytes)
        try transfer.write(from: 0, to: bytes.count)
        try transfer.verify()
        guard case .failure(let error) = await install.result() else {
            Issue.record("more bytes than the catalog allows must be refused")
            return
        }
        guard case .sizeExceeded = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(fixture.stagingNames().isEmpty)
    }

    @Test("recovery leaves a staging folder alone while an install holds it")
    func recoverySkipsLiveStaging() throws {
        let fixture = try InstallFixture()
        let live = try StagingFolder(store: fixture.store, productID: InstallFixture.productID, expectedBytes: 0)
        let deadPath = fixture.store.stagingDirectory.appendingPathComponent("crashed-123")
        try FileManager.default.createDirectory(at: deadPath, withIntermediateDirectories: true)
        let recovery = try ContentInstaller.recover(store: fixture.store)
        #expect(recovery.removedStaging == ["crashed-123"])
        #expect(FileManager.default.fileExists(atPath: live.path))
        live.remove()
    }
}

/// The queue wires it together: over a rate-limited nginx, files appear in staging while the
/// download is still active, and the result is the packed folder, byte for byte.
@Suite("Content queue: install overlapped with the download")
struct QueueOverlapTests {
    @Test("extraction starts before the archive is verified; the install is byte-identical")
    func overlapsThroughTheQueue() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 512k;")
        let source = try fixture.source("com.example.overlap", version: "1.0", size: 4 << 20)
        try fixture.publish([source])
        // Told synchronously on the install thread when extraction starts: is the archive verified yet?
        let probe = OverlapProbe(archive: fixture.store.archiveFile(productID: "com.example.overlap", version: "1.0"))
        let queue = try ContentQueue(
            store: fixture.store, catalog: fixture.catalog(), options: fastOptions(),
            installOptions: ContentInstaller.Options(
                spacePreflight: SpacePreflight(marginFraction: 0, marginBytes: 0), observer: probe))
        try await queue.open()
        _ = try await queue.add(VerifiedPurchase(transactionID: "t-overlap", productID: "com.example.overlap"))
        let done = await waitForDownloads(queue, ["t-overlap"])
        #expect(done["t-overlap"]?.downloads.first?.state == .finished)
        let installed = try #require(queue.contentURL(forProductID: "com.example.overlap"))
        #expect(try diffTrees(source, installed).status == 0)
        await queue.close()
        #expect(fixture.stagingLeftovers().isEmpty)
        // Extraction began once, before the transfer had verified (and renamed) the archive.
        #expect(probe.archiveExistedAtExtracting.withLock { $0 } == [false])
    }

    /// Records, at each `extracting`, whether the verified archive already existed.
    final class OverlapProbe: InstallPhaseObserver {
        let archive: URL
        let archiveExistedAtExtracting = Mutex<[Bool]>([])
        init(archive: URL) { self.archive = archive }
        func install(of productID: String, reached phase: InstallPhase) {
            guard phase == .extracting else { return }
            let exists = FileManager.default.fileExists(atPath: archive.path)
            archiveExistedAtExtracting.withLock { $0.append(exists) }
        }
    }
}
