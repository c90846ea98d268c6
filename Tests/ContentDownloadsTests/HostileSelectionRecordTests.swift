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
    /// The German install of ``VoicedProduct`` with the hires pack, in `<fixture>/store`.
    static func germanWithHiRes(_ fixture: QueueFixture) async throws -> URL {
        let product = try VoicedProduct(fixture)
        try fixture.publish([product.folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        let install = try await iapcontentOffPool([
            "download", VoicedProduct.productID, "--catalog", fixture.catalogURL, "--store", store.path, "--select", "language=de",
        ])
        #expect(install.status == 0, "\(install.output)")
        let added = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--add", "hires", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(added.status == 0, "\(added.output)")
        return store
    }

    /// `Contents/Voices/intro.ogg`'s bytes and whether `Contents/HiRes` is there, in `store`.
    static func installed(_ store: URL) throws -> (voice: Data, hires: Bool) {
        let folder = store.appendingPathComponent("content/\(VoicedProduct.productID)/Contents")
        return (try Data(contentsOf: folder.appendingPathComponent("Voices/intro.ogg")),
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("HiRes/textures.bin").path))
    }

    @Test("a store copied with cp -a keeps every selection: verify is clean, repair changes nothing")
    func copiedStoreKeepsTheSelection() async throws {
        let fixture = try QueueFixture()
        let store = try await Self.germanWithHiRes(fixture)
        let before = try Self.installed(store)
        let copy = fixture.root.appendingPathComponent("copy")
        let copied = try CommandRunner.run("/bin/cp", ["-a", store.path, copy.path])
        #expect(copied.status == 0)
        let verify = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", copy.path])
        #expect(verify.status == 0, "\(verify.output)")
        let repair = try await iapcontentOffPool(["repair", VoicedProduct.productID, "--catalog", fixture.catalogURL, "--store", copy.path])
        #expect(repair.status == 0, "\(repair.output)")
        let after = try Self.installed(copy)
        #expect(after.voice == before.voice, "the German voices are kept")
        #expect(after.hires, "the prefetch pack is kept")
        let packs = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--store", copy.path, "--json"])
        #expect(packs.output.contains("\"hires\"") && packs.status == 0, "\(packs.output)")
        withExtendedLifetime(fixture) {}
    }

    @Test("a garbage or truncated record with no other to recover from: verify, repair and packs --add say so and change nothing",
          arguments: ["garbage", "truncated", "missing"])
    func unreadableRecordChangesNothing(_ damage: String) async throws {
        let fixture = try QueueFixture()
        let store = try await Self.germanWithHiRes(fixture)
        let before = try Self.installed(store)
        let selections = store.appendingPathComponent("selections")
        for name in try FileManager.default.contentsOfDirectory(atPath: selections.path) {
            let record = selections.appendingPathComponent(name)
            switch damage {
            case "garbage": try Data("\u{0}\u{1}not json".utf8).write(to: record)
            case "truncated": try Data(try Data(contentsOf: record).prefix(10)).write(to: record)
            default: try FileManager.default.removeItem(at: record)
            }
        }
        for arguments in [
            ["verify", VoicedProduct.productID, "--store", store.path],
            ["repair", VoicedProduct.productID, "--catalog", fixture.catalogURL, "--store", store.path],
            ["packs", VoicedProduct.productID, "--add", "hires", "--catalog", fixture.catalogURL, "--store", store.path],
        ] {
            let run = try await iapcontentOffPool(arguments)
            #expect(run.status != 0, "\(arguments[0]) \(damage): \(run.output)")
            #expect(run.output.contains("cannot be known") && run.output.contains("nothing was changed"), "\(arguments[0]) \(damage): \(run.output)")
        }
        let after = try Self.installed(store)
        #expect(after.voice == before.voice && after.hires, "nothing changed (\(damage))")
        // The way out: choosing again.
        let chosen = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--select", "language=de", "--add", "hires", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(chosen.status == 0, "\(chosen.output)")
        let verify = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        withExtendedLifetime(fixture) {}
    }

    @Test("removing an essential pack or core is refused in words, nothing changed", arguments: ["core", "voices"])
    func removingAnEssentialPackIsRefused(_ pack: String) async throws {
        let fixture = try QueueFixture()
        let store = try await Self.germanWithHiRes(fixture)
        let run = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--remove", pack, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("'\(pack)' is an essential pack") && run.output.contains("nothing changed"), "\(run.output)")
        #expect(try Self.installed(store).hires)
        withExtendedLifetime(fixture) {}
    }
}
