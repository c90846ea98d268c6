import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The store's selection records as a careless user or a broken disk leaves them: the failure names the real reason
/// and the path, and nothing is installed half-way.
@Suite("Hostile selection records")
struct HostileSelectionRecordTests {
    static let productID = "com.example.hostile.selections"

    @Test("selections/ being a file fails with the real reason (not a hard-coded I/O error), nothing installed")
    func selectionsIsAFile() async throws {
        let fixture = try QueueFixture()
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/selections"), productID: Self.productID,
            files: [
                "Contents/core.bin": PackageFixture.bytes(count: 16 << 10, seed: 1),
                "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 16 << 10, seed: 2),
                "Contents/Voices#language=en/intro.ogg": PackageFixture.bytes(count: 16 << 10, seed: 3),
            ],
            extraKeys: ["Variants": ["language": ["Default": "en"]]])
        try fixture.publish([folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: store.appendingPathComponent("selections"))
        let run = try await iapcontentOffPool(["download", Self.productID, "--catalog", fixture.catalogURL, "--store", store.path, "--select", "language=de"])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("selections") && run.output.contains("Not a directory"), "\(run.output)")
        #expect(!run.output.contains("Input/output error") && !run.output.contains("errno 5"), "\(run.output)")
        #expect(try Store(root: store).contentURL(forProductID: Self.productID) == nil)
        withExtendedLifetime(fixture) {}
    }
}
