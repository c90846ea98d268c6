import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// A product with packs and language variants, published chunk-indexed: the README's walk-through.
struct VoicedProduct {
    static let productID = "com.example.voiced"
    let folder: URL
    let files: [String: Data]

    /// Version 2.0 (`changed`) rewrites the German and French intros.
    init(_ fixture: QueueFixture, voices: String = "essential", changed: Bool = false) throws {
        let version = changed ? "2.0" : "1.0", shift: UInt64 = changed ? 100 : 0
        files = [
            "Contents/core.bin": PackageFixture.bytes(count: 1 << 20, seed: 1),
            "Contents/levels/1.json": Data("{\"level\": 1}\n".utf8),
            "Contents/HiRes/textures.bin": PackageFixture.bytes(count: 1 << 20, seed: 2),
            "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 3 << 20, seed: 3 + shift),
            "Contents/Voices#language=de/credits.txt": Data("Sprecher: A. Muster\n".utf8),
            "Contents/Voices#language=fr/intro.ogg": PackageFixture.bytes(count: 3 << 20, seed: 4 + shift),
            "Contents/Voices#language=fr/credits.txt": Data("Voix : A. Exemple\n".utf8),
            "Contents/Voices#language=en/intro.ogg": PackageFixture.bytes(count: 1 << 20, seed: 5),
        ]
        folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/voiced-\(version)"), productID: Self.productID, version: version, files: files,
            extraKeys: [
                "Packs": [
                    "hires": ["Policy": "prefetch", "Paths": ["Contents/HiRes"]],
                    "voices": ["Policy": voices, "Paths": ["Contents/Voices"]],
                ],
                "Variants": ["language": ["Default": "en"]],
            ])
    }

    /// Publishes `product` and installs it in German (no prefetch) into `<fixture>/store`; returns the store.
    static func installGerman(_ product: VoicedProduct, _ fixture: QueueFixture) async throws -> URL {
        try fixture.publish([product.folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        let install = try await iapcontentOffPool([
            "download", productID, "--catalog", fixture.catalogURL, "--store", store.path, "--select", "language=de", "--no-prefetch",
        ])
        #expect(install.status == 0, "\(install.output)")
        return store
    }

    /// A switch from German to French killed with SIGKILL at `phase`, after a German install: what the crash
    /// tests then look at.
    struct KilledSwitch {
        let fixture: QueueFixture
        let product: VoicedProduct
        let store: URL
        /// The switch's command line, to run it again.
        let arguments: [String]
        let crash: QueueCrashTests.CrashedRun
    }

    /// Installs the product in German, then runs the switch to French in a child killed at `phase`.
    static func switchToFrenchKilled(at phase: String) async throws -> KilledSwitch {
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture)
        let store = try await installGerman(product, fixture)
        let arguments = ["packs", productID, "--select", "language=fr", "--catalog", fixture.catalogURL, "--store", store.path]
        let crash = try await QueueCrashTests.runKilled(arguments, at: phase)
        #expect(crash.killed, "the switch should have been killed at \(phase): status \(crash.status)\n\(crash.output)")
        return KilledSwitch(fixture: fixture, product: product, store: store, arguments: arguments, crash: crash)
    }

    /// The bytes of the archive nginx sent so far.
    static func traffic(_ fixture: QueueFixture) -> Int {
        fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }.reduce(0) { $0 + $1.bodyBytesSent }
    }
}

/// A product installs the variants this device prefers at one path, and switches them after install by fetching
/// only what is not on disk.
@Suite struct PackSwitchTests {
    @Test func installGermanThenSwitchToFrench() async throws {
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture)
        let id = VoicedProduct.productID
        let store = try await VoicedProduct.installGerman(product, fixture)
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=de/intro.ogg"])
        #expect(!FileManager.default.fileExists(atPath: content.appendingPathComponent("Contents/HiRes").path), "a prefetch pack is not essential")
        #expect(!FileManager.default.fileExists(atPath: content.appendingPathComponent("Contents/Voices#language=de").path))
        let installed = VoicedProduct.traffic(fixture)
        #expect(installed < (5 << 20) + (1 << 20), "the install fetched \(installed) bytes for 4 MiB of core and German files")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)

        let packs = try await iapcontentOffPool(["packs", id, "--store", store.path])
        #expect(packs.status == 0, "\(packs.output)")
        #expect(packs.output.contains("hires         prefetch   not installed"), "\(packs.output)")
        #expect(packs.output.contains("voices        essential  installed"), "\(packs.output)")

        let switched = try await iapcontentOffPool(["packs", id, "--select", "language=fr", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(switched.status == 0, "\(switched.output)")
        let french = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: french.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=fr/intro.ogg"])
        #expect(try Data(contentsOf: french.appendingPathComponent("Contents/Voices/credits.txt")) == product.files["Contents/Voices#language=fr/credits.txt"])
        let fetched = VoicedProduct.traffic(fixture) - installed
        let unique = 3 << 20
        #expect(fetched <= unique * 105 / 100 + (64 << 10), "the switch fetched \(fetched) bytes for \(unique) bytes unique to French")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        let records = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("selections").path)
        #expect(records.count == 1, "\(records)")
    }

    @Test func prefetchPacksFollowThePurchaseAndOnDemandPacksComeWhenAsked() async throws {
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture, voices: "onDemand")
        let id = VoicedProduct.productID
        try fixture.publish([product.folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        let install = try await iapcontentOffPool(["download", id, "--catalog", fixture.catalogURL, "--store", store.path, "--select", "language=fr"])
        #expect(install.status == 0, "\(install.output)")
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/HiRes/textures.bin")) == product.files["Contents/HiRes/textures.bin"])
        #expect(!FileManager.default.fileExists(atPath: content.appendingPathComponent("Contents/Voices").path), "on-demand packs wait to be asked")
        let before = VoicedProduct.traffic(fixture)
        let asked = try await iapcontentOffPool(["packs", id, "--add", "voices", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(asked.status == 0, "\(asked.output)")
        #expect(asked.output.contains("voices        onDemand   installed"), "\(asked.output)")
        let voiced = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: voiced.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=fr/intro.ogg"])
        let fetched = VoicedProduct.traffic(fixture) - before
        #expect(fetched <= (3 << 20) * 105 / 100 + (64 << 10), "the French voices took \(fetched) bytes")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
        let unknown = try await iapcontentOffPool(["packs", id, "--add", "music", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(unknown.status == 1 && unknown.output.contains("has no pack 'music'; its packs are core, hires, voices"), "\(unknown.output)")
        let badAxis = try await iapcontentOffPool(["packs", id, "--select", "Language=de", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(badAxis.status == 2 && badAxis.output.contains("--select: 'Language=de' is not axis=value"), "\(badAxis.output)")
        // Refused requests leave the installed folder as it was.
        let after = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: after.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=fr/intro.ogg"])
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
    }

    @Test func anUpdateKeepsTheSelectionAndFetchesOnlyItsChanges() async throws {
        let fixture = try QueueFixture()
        let v1 = try VoicedProduct(fixture), v2 = try VoicedProduct(fixture, changed: true)
        let id = VoicedProduct.productID
        try fixture.publish([v1.folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        let common = ["--catalog", fixture.catalogURL, "--store", store.path]
        #expect(try await iapcontentOffPool(["download", id, "--select", "language=de", "--no-prefetch"] + common).status == 0)
        try fixture.publish([v1.folder, v2.folder], chunked: true)
        let packed = fixture.root.appendingPathComponent("packed")
        let diff = try await iapcontentOffPool([
            "diff", packed.appendingPathComponent("\(id)-1.0.manifest").path, packed.appendingPathComponent("\(id)-2.0.manifest").path,
        ])
        #expect(diff.output.contains("pack voices Contents/Voices language=de: fetches 3.00 MiB"), "\(diff.output)")
        #expect(diff.output.contains("pack voices Contents/Voices language=en: fetches 0.00 MiB"), "\(diff.output)")
        let before = VoicedProduct.traffic(fixture)
        let update = try await iapcontentOffPool(["download", id, "--no-prefetch"] + common)
        #expect(update.status == 0, "\(update.output)")
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg")) == v2.files["Contents/Voices#language=de/intro.ogg"])
        let fetched = VoicedProduct.traffic(fixture) - before
        #expect(fetched <= (3 << 20) * 105 / 100 + (64 << 10), "the update fetched \(fetched) bytes for 3 MiB of changed German voice")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
    }

    @Test func repairAndDeleteCoverTheInstalledSelection() async throws {
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture)
        let id = VoicedProduct.productID
        let store = try await VoicedProduct.installGerman(product, fixture)
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let handle = try FileHandle(forUpdating: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        try handle.seek(toOffset: 1 << 20)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
        try handle.close()
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 1 && verify.output.contains("Contents/Voices/intro.ogg"), "\(verify.output)")
        let before = VoicedProduct.traffic(fixture)
        let repair = try await iapcontentOffPool(["repair", id, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(repair.status == 0 && repair.output.contains("repaired  Contents/Voices/intro.ogg"), "\(repair.output)")
        let repaired = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: repaired.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=de/intro.ogg"])
        #expect(VoicedProduct.traffic(fixture) - before < 3 << 20, "a repair fetches the damaged chunk, not the whole voice")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
        #expect(try await iapcontentOffPool(["delete", id, "--store", store.path]).status == 0)
        let records = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("selections").path)
        #expect(records.isEmpty, "\(records)")
    }
}
