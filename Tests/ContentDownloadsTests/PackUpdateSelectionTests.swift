import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// An update covers exactly the installed selection: a prefetch pack the user left out stays out, the variant chosen
/// stays chosen, and only the changed bytes of the selected packs are fetched (nginx's access log).
@Suite("Packs: an update keeps the installed selection, and a device is told what it has")
struct PackUpdateSelectionTests {
    @Test("installed with --no-prefetch in German, an update to 2.0 brings no HiRes and keeps German")
    func updateKeepsTheSelection() async throws {
        let fixture = try QueueFixture()
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let changed = try VoicedProduct(fixture, changed: true)
        try fixture.publish([changed.folder], chunked: true)
        let sentBefore = fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }.map(\.bodyBytesSent).reduce(0, +)
        let status = try await iapcontentOffPool(["status", "--json", "--catalog", fixture.catalogURL, "--store", store.path])
        let told = try #require(Self.updateBytes(status.output), "\(status.output)")
        let manifestsBefore = fixture.nginx.requests().filter { $0.request.contains(".manifest") }.count
        let restore = try await iapcontentOffPool(["restore", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(restore.status == 0, "\(restore.output)")
        // restore measures the update, then makes it: one manifest fetch serves both.
        let manifests = fixture.nginx.requests().filter { $0.request.contains(".manifest") }.dropFirst(manifestsBefore).map(\.request)
        #expect(manifests.count == 1, "restore fetched the manifest \(manifests.count) times: \(manifests)")
        let folder = store.appendingPathComponent("content/\(VoicedProduct.productID)/Contents")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("HiRes").path), "a pack left out came in with the update")
        let voice = try Data(contentsOf: folder.appendingPathComponent("Voices/intro.ogg"))
        #expect(voice == changed.files["Contents/Voices#language=de/intro.ogg"], "German 2.0 installed")
        let packs = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--store", store.path, "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(packs.output.utf8)) as? [[String: Any]] ?? []
        #expect(list.first { $0["id"] as? String == "hires" }?["installed"] as? Bool == false, "\(packs.output)")
        // What it fetched: the German intro changed (3 MiB of incompressible bytes), nothing of HiRes or French.
        let sent = fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }.map(\.bodyBytesSent).reduce(0, +) - sentBefore
        #expect(sent < Int(Double(3 << 20) * 1.1) + (64 << 10), "fetched \(sent) bytes for a 3 MiB change")
        // What status said the update fetches is what it fetched (its figure also counts the manifest).
        #expect(told >= Int64(sent) && Double(told) <= Double(sent) * 1.05 + Double(64 << 10), "status said \(told), the update fetched \(sent)")
        let verify = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        withExtendedLifetime(fixture) {}
    }
    @Test("packs --json and status --json say which variant is installed, and what is offered")
    func theInstalledVariantIsShown() async throws {
        let fixture = try QueueFixture()
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let packs = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--store", store.path, "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(packs.output.utf8)) as? [[String: Any]] ?? []
        let voices = try #require(list.first { $0["id"] as? String == "voices" }, "\(packs.output)")
        let variant = try #require((voices["variants"] as? [[String: Any]])?.first, "\(voices)")
        #expect(variant["path"] as? String == "Contents/Voices" && variant["axis"] as? String == "language", "\(variant)")
        #expect(variant["installed"] as? String == "de", "\(variant)")
        #expect(variant["values"] as? [String] == ["de", "en", "fr"], "\(variant)")
        #expect(variant.keys.contains("preferred"), "\(variant)")
        let text = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--store", store.path])
        #expect(text.output.contains("Contents/Voices language: de installed"), "\(text.output)")
        let status = try await iapcontentOffPool(["status", "--json", "--store", store.path])
        #expect(status.output.contains("\"installed\" : \"de\"") || status.output.contains("\"installed\":\"de\""), "\(status.output)")
        withExtendedLifetime(fixture) {}
    }
    @Test("two selection changes at once both succeed, one after the other; the later one is what stays", arguments: 0..<3)
    func concurrentChangesQueue(_ round: Int) async throws {
        let fixture = try QueueFixture()
        _ = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let queue = try fixture.queue()
        _ = try await queue.open()
        let french = PackSelection(profile: DeviceProfile(values: ["language": ["fr"]]))
        let english = PackSelection(profile: DeviceProfile(values: ["language": ["en"]]))
        async let first: Void = queue.changeSelection(productID: VoicedProduct.productID, to: french)
        async let second: Void = queue.changeSelection(productID: VoicedProduct.productID, to: english)
        var errors: [String] = []
        do { try await first } catch { errors.append("fr: \(error)") }
        do { try await second } catch { errors.append("en: \(error)") }
        #expect(errors.isEmpty, "round \(round): \(errors)")
        let installed = fixture.store.installedSelection(productID: VoicedProduct.productID)
        #expect(installed == french || installed == english, "round \(round): \(String(describing: installed))")
        let verification = try fixture.store.verifyContent(productID: VoicedProduct.productID)
        #expect(verification.isIntact, "round \(round): \(verification)")
        await queue.close()
    }

    @Test("the prefetch download after a purchase is the product's: the transaction's download stays finished, its bytes unchanged")
    func prefetchBytesAreNotThePurchases() async throws {
        let fixture = try QueueFixture()
        try fixture.publish([try VoicedProduct(fixture).folder], chunked: true)
        var options = fastOptions()
        options.deviceProfile = DeviceProfile(values: ["language": ["de"]])
        let queue = try ContentQueue(store: fixture.store, catalog: fixture.catalog(), options: options)
        let recorder = QueueEventTests.Recorder(queue.updates)
        _ = try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-prefetch", productID: VoicedProduct.productID))
        let finished = try #require(await recorder.wait(for: "t-prefetch") { $0.state == .finished })
        await queue.waitForPrefetches()
        let hires = fixture.store.root.appendingPathComponent("content/\(VoicedProduct.productID)/Contents/HiRes/textures.bin")
        #expect(FileManager.default.fileExists(atPath: hires.path), "the prefetch pack came")
        try await Task.sleep(for: .milliseconds(300))  // any update of the prefetch download has been delivered
        let seen = recorder.downloads(of: "t-prefetch").map(\.download)
        let after = seen.drop { $0.state != .finished }.dropFirst()
        #expect(after.allSatisfy { $0.state == .finished && $0.snapshot.downloadedBytes == finished.snapshot.downloadedBytes },
                "the prefetch download was credited to the purchase: \(after.map { "\($0.state) \($0.snapshot.downloadedBytes)" })")
        await queue.close()
    }

    @Test("download shows the prefetch packs' download on a row of its own, to its end")
    func prefetchBytesAreShown() async throws {
        let fixture = try QueueFixture()
        try fixture.publish([try VoicedProduct(fixture).folder], chunked: true)
        let store = fixture.root.appendingPathComponent("store")
        let run = try await iapcontentOffPool([
            "download", VoicedProduct.productID, "--catalog", fixture.catalogURL, "--store", store.path, "--select", "language=de", "--json",
        ])
        #expect(run.status == 0, "\(run.output)")
        let events = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let packs = events.filter { $0["packs"] as? Bool == true }
        #expect(packs.contains { $0["state"] as? String == "active" || $0["state"] as? String == "waiting" }, "\(run.output)")
        let last = try #require(packs.last, "no event of the prefetch download: \(run.output)")
        #expect(last["state"] as? String == "finished", "\(last)")
        // Its bytes are HiRes's (1 MiB of incompressible bytes), not the purchase's.
        #expect((last["downloadedBytes"] as? Int ?? 0) >= 1 << 20, "\(last)")
        let purchase = events.last { $0["packs"] == nil && $0["state"] as? String == "finished" }
        #expect(purchase != nil, "\(run.output)")
        withExtendedLifetime(fixture) {}
    }

    /// The first `updateBytes` figure in `status --json`'s output.
    static func updateBytes(_ output: String) -> Int64? {
        guard let range = output.range(of: "\"updateBytes\"") else { return nil }
        let digits = output[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int64(digits)
    }
}
