import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `ContentInstaller.Options.deferDeletion`: after the swap, the old version and the used archive are renamed
/// into `trash/` instead of being deleted there, and `Store.emptyTrash()` deletes them later.
@Suite("Install: deferred deletion through the trash")
struct InstallDeferredDeletionTests {
    private func trashEntries(_ store: Store) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.trashDirectory.path)) ?? []).sorted()
    }

    @Test("an update moves the old version and the archive into trash/; emptyTrash deletes both")
    func updateLeavesTrashThenEmpties() throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        #expect(!fixture.store.hasTrash)
        let (archive, product) = try fixture.product(InstallFixture.package(version: "2"), name: "good-2.tar.zst", version: "2")
        let archiveSize = try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? Int
        let recorder = PhaseRecorder()
        var options = InstallFixture.options
        options.deferDeletion = true
        options.observer = recorder
        let installed = try ContentInstaller.install(archive: archive, product: product, store: fixture.store, options: options)

        #expect(recorder.phases == [.extracting, .swapped, .cleaned])
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("2"))
        #expect(try String(contentsOf: installed.appendingPathComponent("Contents/version.txt"), encoding: .utf8) == "version 2\n")
        #expect(!FileManager.default.fileExists(atPath: archive.path), "the archive left its folder")
        #expect(fixture.stagingNames().isEmpty)
        // Both wait in the trash: the old version (a folder holding version 1) and the archive (same bytes).
        let entries = trashEntries(fixture.store)
        #expect(entries.count == 2, "\(entries)")
        #expect(fixture.store.hasTrash)
        var sawOldVersion = false, sawArchive = false
        for name in entries {
            let url = fixture.store.trashDirectory.appendingPathComponent(name)
            if let text = try? String(contentsOf: url.appendingPathComponent("Contents/version.txt"), encoding: .utf8) {
                sawOldVersion = text == "version 1\n"
            } else if let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int {
                sawArchive = size == archiveSize && name.hasPrefix("good-2.tar.zst-")
            }
        }
        #expect(sawOldVersion)
        #expect(sawArchive)

        let removed = try fixture.store.emptyTrash()
        #expect(removed.sorted() == entries)
        #expect(trashEntries(fixture.store).isEmpty)
        #expect(!fixture.store.hasTrash)
        #expect(try fixture.store.emptyTrash().isEmpty, "idempotent")
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("2"))
    }

    @Test("recovery empties the trash too (the detached deletion never ran)")
    func recoveryEmptiesTrash() throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        let (archive, product) = try fixture.product(InstallFixture.package(version: "2"), name: "good-2.tar.zst", version: "2")
        var options = InstallFixture.options
        options.deferDeletion = true
        try ContentInstaller.install(archive: archive, product: product, store: fixture.store, options: options)
        #expect(trashEntries(fixture.store).count == 2)
        let recovery = try ContentInstaller.recover(store: fixture.store)
        #expect(recovery.removedTrash.count == 2)
        #expect(trashEntries(fixture.store).isEmpty)
    }

    @Test("emptyTrash(atRoot:) of a store that is gone creates nothing")
    func emptyingAMissingStoreCreatesNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gone-\(UUID().uuidString)", isDirectory: true)
        #expect(try Store.emptyTrash(atRoot: root).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test("emptyTrash(atRoot:) creates no file in a store being deleted: without its .lock it leaves everything alone")
    func emptyingNeverCreatesTheLock() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("half-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let trash = root.appendingPathComponent("trash", isDirectory: true)
        try FileManager.default.createDirectory(at: trash, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: trash.appendingPathComponent("archive-1"))
        // An owner's `rm -rf` already took `.lock`: creating it again would make that `rm` fail.
        #expect(try Store.emptyTrash(atRoot: root).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(".lock").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["trash"])
    }
}
