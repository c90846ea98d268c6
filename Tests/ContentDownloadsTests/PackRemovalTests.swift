import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Removing a pack is made of the installed files: every kept file linked, nothing fetched, no catalog needed,
/// and a crash at any point leaves the old folder or the new one, each with its own selection.
@Suite("Packs: removing a pack fetches nothing")
struct PackRemovalTests {
    /// German installed, then the prefetch pack `hires` added through nginx; returns the store.
    static func installWithHiRes(_ fixture: QueueFixture) async throws -> URL {
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let add = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--add", "hires", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(add.status == 0, "\(add.output)")
        #expect(FileManager.default.fileExists(atPath: hiRes(in: store).path), "hires installed")
        return store
    }

    static func hiRes(in store: URL) -> URL {
        store.appendingPathComponent("content/\(VoicedProduct.productID)/Contents/HiRes/textures.bin")
    }

    /// The bytes nginx has sent so far, every request counted.
    static func sent(_ fixture: QueueFixture) -> Int { fixture.nginx.requests().map(\.bodyBytesSent).reduce(0, +) }

    @Test("packs --remove without --catalog: no request reaches the host, the kept files are the same inodes, verify is clean")
    func removalFetchesNothing() async throws {
        let fixture = try QueueFixture()
        let store = try await Self.installWithHiRes(fixture)
        let voice = store.appendingPathComponent("content/\(VoicedProduct.productID)/Contents/Voices/intro.ogg")
        let inodeBefore = try FileManager.default.attributesOfItem(atPath: voice.path)[.systemFileNumber] as? Int
        let requestsBefore = fixture.nginx.requests().count, sentBefore = Self.sent(fixture)
        let remove = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--remove", "hires", "--store", store.path, "--json"])
        #expect(remove.status == 0, "\(remove.output)")
        #expect(fixture.nginx.requests().count == requestsBefore, "a removal sent requests: \(fixture.nginx.requests().dropFirst(requestsBefore).map(\.request))")
        #expect(Self.sent(fixture) - sentBefore == 0)
        #expect(!FileManager.default.fileExists(atPath: Self.hiRes(in: store).path), "hires is gone")
        let inodeAfter = try FileManager.default.attributesOfItem(atPath: voice.path)[.systemFileNumber] as? Int
        #expect(inodeBefore != nil && inodeBefore == inodeAfter, "the German voice was linked, not written again")
        let list = try JSONSerialization.jsonObject(with: Data(remove.output.utf8)) as? [[String: Any]] ?? []
        #expect(list.first { $0["id"] as? String == "hires" }?["installed"] as? Bool == false, "\(remove.output)")
        let voices = list.first { $0["id"] as? String == "voices" }?["variants"] as? [[String: Any]]
        #expect(voices?.first?["installed"] as? String == "de", "the language stays German: \(remove.output)")
        let verify = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        // Nothing of the change is left in transfers/.
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(!left.contains { $0.hasSuffix(".update") }, "\(left)")
    }

    @Test("a change that must fetch, without a catalog, is refused in words and changes nothing")
    func aFetchingChangeNeedsTheCatalog() async throws {
        let fixture = try QueueFixture()
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let change = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--select", "language=fr", "--store", store.path])
        #expect(change.status != 0)
        #expect(change.output.contains("--catalog") && change.output.contains("nothing changed"), "\(change.output)")
        #expect(fixture.store.installedSelection(productID: VoicedProduct.productID)?.profile.values["language"] == ["de"])
    }

    @Test("a removal killed before or after its swap leaves one whole selection; run again it finishes", arguments: ["prepare", "swap"])
    func killedRemoval(_ phase: String) async throws {
        let fixture = try QueueFixture()
        let store = try await Self.installWithHiRes(fixture)
        let arguments = ["packs", VoicedProduct.productID, "--remove", "hires", "--store", store.path]
        let crash = try await QueueCrashTests.runKilled(arguments, at: phase)
        #expect(crash.killed, "killed at \(phase): status \(crash.status)\n\(crash.output)")
        let hiResThere = FileManager.default.fileExists(atPath: Self.hiRes(in: store).path)
        #expect(hiResThere == (phase == "prepare"), "killed at \(phase): hires \(hiResThere ? "still" : "no longer") installed")
        let verify = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", store.path])
        #expect(verify.status == 0, "killed at \(phase), the installed folder and its selection record disagree: \(verify.output)")
        let again = try await iapcontentOffPool(arguments)
        #expect(again.status == 0, "\(again.output)")
        #expect(!FileManager.default.fileExists(atPath: Self.hiRes(in: store).path))
        let clean = try await iapcontentOffPool(["verify", VoicedProduct.productID, "--store", store.path])
        #expect(clean.status == 0, "\(clean.output)")
    }
}
