import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A variant switch killed with SIGKILL while its tree is built, while fetched chunks are placed, after
/// verification and after the swap: the installed folder is always exactly the old selection or the new one
/// (`verify` clean against the selection recorded for that very folder), and the rerun ends with the new one.
@Suite("Variant switch: kill -9 at each phase, then restart", .serialized)
struct PackSwitchCrashTests {
    @Test("killed while preparing, placing fetched chunks, after verify, after the swap",
          arguments: ["prepare", "extract", "verify", "swap"])
    func killASwitchAndRestart(phase: String) async throws {
        let killed = try await VoicedProduct.switchToFrenchKilled(at: phase)
        defer { withExtendedLifetime(killed) {} }  // its fixture's nginx serves the rerun
        let (product, store, arguments) = (killed.product, killed.store, killed.arguments)
        let id = VoicedProduct.productID

        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        let german = product.files["Contents/Voices#language=de/intro.ogg"], french = product.files["Contents/Voices#language=fr/intro.ogg"]
        #expect(voice == german || voice == french, "after a kill at \(phase) the voice is neither language")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "after a kill at \(phase) the folder and its recorded selection disagree:\n\(verify.output)")

        let rerun = try await iapcontentOffPool(arguments)
        #expect(rerun.status == 0, "rerun after a kill at \(phase):\n\(rerun.output)")
        let switched = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: switched.appendingPathComponent("Contents/Voices/intro.ogg")) == french)
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left) after a kill at \(phase)")
    }

    /// The fetch starts while the planning thread makes the tree, the selection record and the plan durable; a
    /// switch killed once its first fetched frame arrived and before that (`unkept` holds the planning thread back)
    /// leaves the old selection, `verify` clean, no download for the next process to find and nothing in
    /// `transfers/`: as if it never started. The rerun then switches.
    @Test func killedAfterTheFirstFrameBeforeThePlanIsDurable() async throws {
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture)
        let id = VoicedProduct.productID
        let store = try await VoicedProduct.installGerman(product, fixture)
        let arguments = ["packs", id, "--select", "language=fr", "--catalog", fixture.catalogURL, "--store", store.path]
        let crash = try await QueueCrashTests.runKilled(arguments, at: "unkept")
        #expect(crash.killed, "the switch should have been killed at its first frame: status \(crash.status)\n\(crash.output)")

        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        #expect(voice == product.files["Contents/Voices#language=de/intro.ogg"], "the German voice is not installed after the kill")
        #expect(try Store(root: store).installedSelection(productID: id)?.profile.languages.first == "de")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "after the kill the folder and its recorded selection disagree:\n\(verify.output)")
        let manager = try DownloadManager(store: try Store(root: store))
        try await manager.start()
        let downloads = await manager.snapshots()
        await manager.shutdown()
        #expect(downloads.isEmpty, "the next process finds \(downloads.map { "\($0.productID) \($0.state)" }) of a switch killed before its plan was durable")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left) of a switch killed before its plan was durable")

        #expect(try await iapcontentOffPool(arguments).status == 0)
        let switched = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try Data(contentsOf: switched.appendingPathComponent("Contents/Voices/intro.ogg")) == product.files["Contents/Voices#language=fr/intro.ogg"])
    }

    /// A switch killed on its way to French, then a request for the German installed now: the next process resumes
    /// the French switch when it opens, so the request must cancel it rather than see nothing to do and let it swap
    /// French in. German stays, `verify` is clean, and nothing is left to resume or in `transfers/`.
    @Test func aRequestForTheInstalledSelectionCancelsAnInterruptedSwitch() async throws {
        let killed = try await VoicedProduct.switchToFrenchKilled(at: "extract")
        let (fixture, product, store) = (killed.fixture, killed.product, killed.store)
        let id = VoicedProduct.productID
        let back = ["packs", id, "--select", "language=de", "--catalog", fixture.catalogURL, "--store", store.path]
        let run = try await iapcontentOffPool(back)
        #expect(run.status == 0, "\(run.output)")

        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        #expect(voice == product.files["Contents/Voices#language=de/intro.ogg"], "the interrupted switch to French swapped in")
        #expect(try Store(root: store).installedSelection(productID: id)?.profile.languages.first == "de")
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
        let manager = try DownloadManager(store: try Store(root: store))
        try await manager.start()
        let pending = await manager.snapshots().filter { $0.state != .cancelled && $0.state != .finished }
        await manager.shutdown()
        #expect(pending.isEmpty, "the next process would resume \(pending.map { "\($0.productID) \($0.state)" })")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
    }

    /// A switch killed on its way to French, then a pack requested (`--add hires`): the request starts from the
    /// switch that was asked for last, so French is installed with the pack, not German.
    @Test func aPackRequestedAfterAnInterruptedSwitchKeepsTheSwitch() async throws {
        let killed = try await VoicedProduct.switchToFrenchKilled(at: "extract")
        let (fixture, product, store) = (killed.fixture, killed.product, killed.store)
        let id = VoicedProduct.productID
        let run = try await iapcontentOffPool(["packs", id, "--add", "hires", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(run.status == 0, "\(run.output)")

        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
        #expect(voice == product.files["Contents/Voices#language=fr/intro.ogg"], "the pack request undid the switch to French")
        #expect(try Data(contentsOf: content.appendingPathComponent("Contents/HiRes/textures.bin")) == product.files["Contents/HiRes/textures.bin"])
        #expect(try await iapcontentOffPool(["verify", id, "--store", store.path]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
    }

    /// kill -9 at random instants of switches back and forth (`IAPCONTENT_SWITCH_KILLS` of them, 5 by default;
    /// `tools/pack-switch-soak` runs 100): after each, the folder is exactly German or French and `verify` is clean.
    @Test func killSwitchesAtRandomInstants() async throws {
        let kills = Int(ProcessInfo.processInfo.environment["IAPCONTENT_SWITCH_KILLS"] ?? "") ?? 5
        let fixture = try QueueFixture()
        let product = try VoicedProduct(fixture)
        let id = VoicedProduct.productID
        let store = try await VoicedProduct.installGerman(product, fixture)
        let common = ["--catalog", fixture.catalogURL, "--store", store.path]
        let voices = ["de": product.files["Contents/Voices#language=de/intro.ogg"]!, "fr": product.files["Contents/Voices#language=fr/intro.ogg"]!]
        func installedLanguage() throws -> String? {
            let content = try #require(try Store(root: store).contentURL(forProductID: id))
            let voice = try Data(contentsOf: content.appendingPathComponent("Contents/Voices/intro.ogg"))
            return voices.first { $0.value == voice }?.key
        }
        let started = ContinuousClock.now
        #expect(try await iapcontentOffPool(["packs", id, "--select", "language=fr"] + common).status == 0)
        let whole = (ContinuousClock.now - started) / .milliseconds(1)
        var outcomes: [String: Int] = [:]
        for run in 0..<kills {
            let target = try installedLanguage() == "de" ? "fr" : "de"
            let (child, output) = try QueueCrashTests.spawn(["packs", id, "--select", "language=\(target)"] + common)
            defer { try? FileManager.default.removeItem(at: output) }
            let delay = UInt32(Double.random(in: 0...(whole * 1.2)) * 1000)
            try await offPool {
                usleep(delay)
                kill(child.processIdentifier, SIGKILL)
                QueueCrashTests.wait(child, timeout: 60)
            }
            let language = try installedLanguage()
            #expect(language != nil, "run \(run): killed after \(delay) µs, the voice is neither language")
            outcomes[language == target ? "new" : "old", default: 0] += 1
            let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
            #expect(verify.status == 0, "run \(run): killed after \(delay) µs:\n\(verify.output)")
            if language == nil || verify.status != 0 { break }
        }
        print("pack switch kills: \(kills) runs, \(outcomes["old", default: 0]) left the old selection, \(outcomes["new", default: 0]) the new; a whole switch took \(Int(whole)) ms")
        #expect(try await iapcontentOffPool(["packs", id, "--select", "language=fr"] + common).status == 0)
        #expect(try installedLanguage() == "fr")
    }
}
