import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The files of a product whose `de` and `fr` voices share a music file and a credits file (stored once in the
/// archive, `fr`'s as hard links to `de`'s), both repeat a theme of the core (links to it, so a selection writes the
/// core's and its own from one range), and differ in their intros (`PackageFixture.bytes` seeds are made odd).
func sharedVariantDownloadFiles() -> [String: Data] {
    [
        "Contents/core.bin": PackageFixture.bytes(count: 1 << 20, seed: 1),
        "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 1 << 20, seed: 3),
        "Contents/Voices#language=fr/intro.ogg": PackageFixture.bytes(count: 1 << 20, seed: 7),
        "Contents/Voices#language=de/music.ogg": PackageFixture.bytes(count: 2 << 20, seed: 9),
        "Contents/Voices#language=fr/music.ogg": PackageFixture.bytes(count: 2 << 20, seed: 9),
        "Contents/Voices#language=de/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/Voices#language=fr/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/Voices#language=en/intro.ogg": PackageFixture.bytes(count: 64 << 10, seed: 13),
        "Contents/Music/theme.ogg": PackageFixture.bytes(count: 512 << 10, seed: 15),
        "Contents/Voices#language=de/theme.ogg": PackageFixture.bytes(count: 512 << 10, seed: 15),
        "Contents/Voices#language=fr/theme.ogg": PackageFixture.bytes(count: 512 << 10, seed: 15),
    ]
}

/// The voices pack (essential) and its language axis.
var sharedVariantDownloadKeys: [String: Any] { [
    "Packs": ["voices": ["Policy": "essential", "Paths": ["Contents/Voices"]]],
    "Variants": ["language": ["Default": "en"]],
] }

/// Variants sharing files install from chunks of the archive that stores them once: one variant alone, the other
/// alone (its shared files from the first's chunks), and a switch between them, each verified.
@Suite struct SharedVariantFilesTests {
    static let productID = "com.example.shared"

    /// Publishes the product (chunked) and returns its files.
    static func publish(_ fixture: QueueFixture) throws -> [String: Data] {
        let files = sharedVariantDownloadFiles()
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/shared"), productID: productID, version: "1.0", files: files,
            extraKeys: sharedVariantDownloadKeys)
        try fixture.publish([folder], chunked: true)
        return files
    }

    /// Expects the installed voices of `language` at `Contents/Voices/…` in `store`, and a clean verify.
    static func expectVoices(_ language: String, files: [String: Data], store: URL) async throws {
        let content = try #require(try Store(root: store).contentURL(forProductID: productID))
        for name in ["intro.ogg", "music.ogg", "credits.txt", "theme.ogg"] {
            let installed = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/\(name)"))
            #expect(installed == files["Contents/Voices#language=\(language)/\(name)"], "\(language) \(name)")
        }
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/core.bin")) == files["Contents/core.bin"])
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/Music/theme.ogg")) == files["Contents/Music/theme.ogg"])
        let verify = try await iapcontentOffPool(["verify", productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func installGermanAloneThenSwitchToFrench() async throws {
        let fixture = try QueueFixture()
        let files = try Self.publish(fixture)
        let store = fixture.root.appendingPathComponent("store")
        let common = ["--catalog", fixture.catalogURL, "--store", store.path]
        let install = try await iapcontentOffPool(["download", Self.productID, "--select", "language=de"] + common)
        #expect(install.status == 0, "\(install.output)")
        try await Self.expectVoices("de", files: files, store: store)
        let installed = VoicedProduct.traffic(fixture)
        #expect(installed < (4 << 20) + (768 << 10), "the German install fetched \(installed) bytes for 4.5 MiB of distinct files")

        let switched = try await iapcontentOffPool(["packs", Self.productID, "--select", "language=fr"] + common)
        #expect(switched.status == 0, "\(switched.output)")
        try await Self.expectVoices("fr", files: files, store: store)
        let fetched = VoicedProduct.traffic(fixture) - installed
        #expect(fetched <= (1 << 20) + (128 << 10), "the switch fetched \(fetched) bytes for 1 MiB unique to French")
    }

    @Test func installFrenchAloneTakesTheSharedFilesFromGermanChunks() async throws {
        let fixture = try QueueFixture()
        let files = try Self.publish(fixture)
        let store = fixture.root.appendingPathComponent("store")
        let install = try await iapcontentOffPool(["download", Self.productID, "--select", "language=fr", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(install.status == 0, "\(install.output)")
        try await Self.expectVoices("fr", files: files, store: store)
        let fetched = VoicedProduct.traffic(fixture)
        #expect(fetched < (4 << 20) + (768 << 10), "the French install fetched \(fetched) bytes for 4.5 MiB of distinct files")
    }

    @Test func theArchiveHoldsTheDistinctContentAndALinkedFileIsRepairedFromItsSourcesChunks() async throws {
        let fixture = try QueueFixture()
        let files = try Self.publish(fixture)
        let store = fixture.root.appendingPathComponent("store")
        let packed = fixture.root.appendingPathComponent("packed/\(Self.productID)-1.0.manifest")
        let manifest = try PackageManifest.decode(contentsOfFile: packed.path)
        // The copies of music and theme (chunks of their own) are links; the 8 KiB credits keep their data.
        #expect((manifest.linkedFiles ?? []).count == 3)
        let distinct = Set(files.values).reduce(0) { $0 + $1.count }
        #expect(manifest.archiveSize <= Int64(distinct + (64 << 10)), "archive \(manifest.archiveSize) bytes for \(distinct) distinct")
        let common = ["--catalog", fixture.catalogURL, "--store", store.path]
        let install = try await iapcontentOffPool(["download", Self.productID, "--select", "language=fr"] + common)
        #expect(install.status == 0, "\(install.output)")
        let content = try #require(try Store(root: store).contentURL(forProductID: Self.productID))
        let handle = try FileHandle(forUpdating: content.appendingPathComponent("Contents/Voices/music.ogg"))
        try handle.seek(toOffset: 1 << 20)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
        try handle.close()
        let damaged = try await iapcontentOffPool(["verify", Self.productID, "--store", store.path])
        #expect(damaged.status == 1 && damaged.output.contains("Contents/Voices/music.ogg"), "\(damaged.output)")
        let repair = try await iapcontentOffPool(["repair", Self.productID] + common)
        #expect(repair.status == 0 && repair.output.contains("Contents/Voices/music.ogg"), "\(repair.output)")
        try await Self.expectVoices("fr", files: files, store: store)
    }
}
