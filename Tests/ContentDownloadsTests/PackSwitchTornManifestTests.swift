import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The manifest a switch copies into `transfers/` is made durable with the plan, after the first request went out:
/// a switch killed before that may leave a torn copy (what a power loss leaves of a file never fsynced). The next
/// process must never follow it: it keeps the manifest again, checked against the signed catalog, and the switch
/// ends exactly old or new, `verify` clean, nothing left in `transfers/`.
@Suite("Variant switch: a manifest copy torn by a crash", .serialized)
struct PackSwitchTornManifestTests {
    /// Killed while the tree is built (`prepare`: the copy is written, nothing is journaled) or once the first
    /// fetched frame arrived before the plan is durable (`unkept`: the request is out); the copy is then torn to
    /// half its length, and the switch is run again.
    @Test("killed before the manifest copy is durable, the copy torn, then restarted", arguments: ["prepare", "unkept"])
    func tornCopyIsNeverFollowed(phase: String) async throws {
        let killed = try await VoicedProduct.switchToFrenchKilled(at: phase)
        defer { withExtendedLifetime(killed) {} }  // its fixture's nginx serves the rerun
        let (product, store, arguments) = (killed.product, killed.store, killed.arguments)
        let id = VoicedProduct.productID

        let transfers = store.appendingPathComponent("transfers")
        let copies = try FileManager.default.contentsOfDirectory(atPath: transfers.path).filter { $0.hasSuffix(".manifest.json") }
        #expect(copies.count == 1, "after a kill at \(phase) transfers/ should keep the manifest copy: \(copies)")
        for name in copies {
            let copy = transfers.appendingPathComponent(name)
            let whole = try Data(contentsOf: copy)
            try whole.prefix(whole.count / 2).write(to: copy)
        }

        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        #expect(voice == product.files["Contents/Voices#language=de/intro.ogg"], "after a kill at \(phase) the German voice is not installed")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)

        let rerun = try await iapcontentOffPool(arguments)
        #expect(rerun.status == 0, "rerun after a kill at \(phase) and a torn manifest copy:\n\(rerun.output)")
        let switched = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: switched.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=fr/intro.ogg"])
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "after the rerun the folder and its recorded selection disagree:\n\(verify.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: transfers.path)
        #expect(left.isEmpty, "transfers/ keeps \(left) after a kill at \(phase) and a torn manifest copy")
    }
}
