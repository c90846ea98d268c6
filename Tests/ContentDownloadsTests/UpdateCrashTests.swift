import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// An update killed with SIGKILL while its tree is built from the installed version, while fetched chunks are
/// installed, after verification and after the swap, then run again: the installed version is whole at every
/// point (the old one until the swap), and the rerun ends with the new version byte-identical.
@Suite("Updates: kill -9 at each phase, then restart", .serialized)
struct UpdateCrashTests {
    @Test("killed while preparing, installing fetched chunks, after verify, after the swap",
          arguments: ["prepare", "extract", "verify", "swap"])
    func killAnUpdateAndRestart(phase: String) async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture)
        let arguments = ["download", DeltaVersions.productID, "--catalog", fixture.catalogURL, "--store", store.path, "--retry-delay", "0.1"]
        let crash = try await QueueCrashTests.runKilled(arguments, at: phase)
        let firstRun = crash.output
        #expect(crash.killed, "the update should have been killed at \(phase): status \(crash.status)\n\(firstRun)")
        try QueueCrashTests.requireRecoverable(
            try Store(root: store), productID: DeltaVersions.productID, phase: phase, output: firstRun)
        let content = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        let version = try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description
        #expect(try diffTrees(version == "2.0" ? versions.v2 : versions.v1, content).status == 0, "after a kill at \(phase)")

        let rerun = try await iapcontentOffPool(arguments)
        #expect(rerun.status == 0, "rerun after a kill at \(phase):\n\(rerun.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: DeltaVersions.productID))
        #expect(try Store(root: store).installedVersion(forProductID: DeltaVersions.productID)?.description == "2.0")
        #expect(try diffTrees(versions.v2, installed).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left) after a kill at \(phase)")
        let verify = try await iapcontentOffPool(["verify", DeltaVersions.productID, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        let traffic = try DeltaVersions.archiveTraffic(fixture)
        #expect(traffic.bytes < (try DeltaVersions.archiveSize(fixture)) / 2, "the rerun fetched \(traffic.bytes) bytes")
    }

    @Test("a repair killed while preparing, installing fetched chunks, after verify, after the swap; repair again",
          arguments: ["prepare", "extract", "verify", "swap"])
    func killARepairAndRepairAgain(phase: String) async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let store = try await versions.installFirst(fixture, publishingNext: false)
        let id = DeltaVersions.productID
        let content = try #require(try Store(root: store).contentURL(forProductID: id))
        try FileManager.default.removeItem(at: content.appendingPathComponent("Contents/levels/1.json"))
        let handle = try FileHandle(forUpdating: content.appendingPathComponent("Contents/big.bin"))
        try handle.seek(toOffset: 3 << 20)
        try handle.write(contentsOf: Data(repeating: 0x11, count: 64))
        try handle.close()
        let arguments = ["repair", id, "--catalog", fixture.catalogURL, "--store", store.path]
        let crash = try await QueueCrashTests.runKilled(arguments, at: phase)
        let firstRun = crash.output
        #expect(crash.killed, "the repair should have been killed at \(phase): status \(crash.status)\n\(firstRun)")

        let again = try await iapcontentOffPool(arguments)
        #expect(again.status == 0, "repair after a kill at \(phase):\n\(again.output)")
        let repaired = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try diffTrees(versions.v1, repaired).status == 0, "after a kill at \(phase) and a second repair")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left) after a kill at \(phase)")
    }
}
