import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Runs the installer in a child process (`iapcontent _install-archive`) that SIGKILLs itself at
/// a chosen point (`IAPCONTENT_TEST_CRASH_AT`), then checks what a restarted client finds.
@Suite("Install: crash during install")
struct InstallCrashTests {
    /// The `iapcontent` executable built beside the test bundle.
    static var binary: URL? { try? CommandRunner.builtExecutable() }

    func crashInstall(_ fixture: borrowing InstallFixture, archive: URL, version: String, at point: String) throws {
        let binary = try #require(Self.binary, "build the iapcontent executable first (swift build --build-tests)")
        var environment = ProcessInfo.processInfo.environment
        environment["IAPCONTENT_TEST_CRASH_AT"] = point
        let result = try run(binary.path, [
            "_install-archive", archive.path, "--product", InstallFixture.productID, "--version", version,
            "--store", fixture.store.root.path, "--keep-archive",
        ], environment: environment)
        #expect(result.signalled && result.status == SIGKILL, "child should die by SIGKILL, got \(result.status): \(result.output)")
    }

    @Test("killed while extracting: v1 intact, recover removes the partial staging folder, reinstall is byte-identical")
    func crashDuringExtraction() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        let builder = InstallFixture.package(version: "2")
        let (url, product) = try fixture.product(builder, name: "v2.tar.zst", version: "2")
        try crashInstall(fixture, archive: url, version: "2", at: "extract")

        #expect(!fixture.stagingNames().isEmpty, "the kill should leave a partial extraction behind")
        #expect(try Snapshot.take(fixture.contentFolder) == v1)
        let recovery = try ContentInstaller.recover(store: fixture.store)
        #expect(recovery.removedStaging.count == 1)
        #expect(fixture.stagingNames().isEmpty)
        #expect(try Snapshot.take(fixture.contentFolder) == v1)

        try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
        try expectInstalled(fixture, builder: builder, version: "2")
    }

    @Test("killed right after the swap: v2 is live, recover deletes the old tree left in staging")
    func crashAfterSwap() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        let builder = InstallFixture.package(version: "2")
        let (url, product) = try fixture.product(builder, name: "v2.tar.zst", version: "2")
        try crashInstall(fixture, archive: url, version: "2", at: "swap")

        let leftovers = fixture.stagingNames()
        #expect(leftovers.count == 1)
        if let name = leftovers.first {
            #expect(try Snapshot.take(fixture.store.stagingDirectory.appendingPathComponent(name)) == v1, "old version parked in staging")
        }
        try expectInstalled(fixture, builder: builder, version: "2")
        let recovery = try ContentInstaller.recover(store: fixture.store)
        #expect(recovery.removedStaging == leftovers)
        #expect(fixture.stagingNames().isEmpty)
        try expectInstalled(fixture, builder: builder, version: "2")

        // Reinstalling the same version after recovery gives the same bytes.
        try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
        try expectInstalled(fixture, builder: builder, version: "2")
        #expect(fixture.stagingNames().isEmpty)
    }

    /// The installed folder holds exactly the builder's files, byte for byte.
    func expectInstalled(_ fixture: borrowing InstallFixture, builder: TestArchiveBuilder, version: String) throws {
        let snapshot = try Snapshot.take(fixture.contentFolder)
        var expectedFiles: [String: Data] = [:]
        for entry in builder.entries where entry.type == 0o100000 {
            expectedFiles[String(decoding: entry.pathBytes, as: UTF8.self)] = entry.data
        }
        var actualFiles: [String: Data] = [:]
        for case let (path, .file(_, data)) in snapshot { actualFiles[path] = data }
        #expect(actualFiles == expectedFiles)
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion(version))
    }
}
