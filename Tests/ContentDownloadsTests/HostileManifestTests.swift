import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A signed manifest whose publisher lies: refused before any archive request when the manifest alone shows
/// it, else while its chunks arrive — naming the file and the reason — and nothing of the download is kept.
@Suite("Hostile manifests")
struct HostileManifestTests {
    /// Plans a download of `fixture` with the manifest changed by `change`; the refusal's text if planning refused it.
    static func planningRefusal(_ fixture: ChunkedFixture, _ change: (inout PackageManifest) -> Void) throws -> String? {
        let lying = try fixture.alteredManifest(change)
        do { try fixture.keepManifest(lying) } catch { return "\(error)" }
        return nil
    }

    @Test func aManifestForAnotherProductOrVersionIsRefusedBeforeAnyRequest() throws {
        let fixture = try ChunkedFixture.standard()
        let other = try #require(try Self.planningRefusal(fixture) { $0.productID = "com.example.other" })
        #expect(other.contains("describes com.example.other 1.0, but the signed catalog offers com.example.chunked 1.0"), "\(other)")
        let newer = try #require(try Self.planningRefusal(fixture) { $0.contentVersion = ContentVersion("9.0")! })
        #expect(newer.contains("describes com.example.chunked 9.0"), "\(newer)")
    }

    @Test(arguments: ["Contents/bad\u{1}name.txt", "Contents/../escape.txt", "elsewhere/file.txt", "Contents/art/BIG.bin"])
    func aPathTheTarRulesRefuseIsRefusedBeforeAnyRequest(path: String) throws {
        let fixture = try ChunkedFixture.standard()
        let refusal = try #require(try Self.planningRefusal(fixture) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/readme.txt" }!
            manifest.files[index].path = path
        })
        #expect(refusal.contains(path) || refusal.contains("bad") || refusal.contains("escape") || refusal.contains("elsewhere") || refusal.contains("BIG"), "\(refusal)")
        #expect(!FileManager.default.fileExists(atPath: fixture.tree.path + ".delta"), "no plan is kept")
    }

    @Test func lyingOffsetsAreRefusedBeforeAnyRequest() throws {
        let fixture = try ChunkedFixture.standard()
        let refusal = try #require(try Self.planningRefusal(fixture) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/art/second.bin" }!
            manifest.files[index].dataOffset! += 1 << 20  // a megabyte of "headers" before it
        })
        #expect(refusal.contains("Contents/art/second.bin"), "\(refusal)")
    }

    /// Runs the download of a manifest that passes planning; returns the failure message.
    static func downloadFailure(_ fixture: ChunkedFixture, _ change: (inout PackageManifest) -> Void) async throws -> String {
        let lying = try fixture.alteredManifest(change)
        try fixture.keepManifest(lying)
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server, product: fixture.product(manifest: lying))
        #expect(result.final?.state == .failed)
        #expect(!FileManager.default.fileExists(atPath: fixture.tree.path), "a refused download keeps no tree")
        let manifest = fixture.store.manifestFile(productID: fixture.manifest.productID, version: "1.0")
        #expect(!FileManager.default.fileExists(atPath: manifest.path), "nor its manifest")
        return result.final?.error?.message ?? ""
    }

    @Test func aFileTheTarLacksIsRefused() async throws {
        let fixture = try ChunkedFixture.standard()
        // A phantom file cut out of big.bin's data: its "header" is 512 bytes of big.bin.
        let message = try await Self.downloadFailure(fixture) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/art/big.bin" }!
            let big = manifest.files[index]
            let keep: Int64 = 1 << 20
            manifest.files[index].size = keep
            var phantom = big
            phantom.path = "Contents/art/phantom.bin"
            phantom.dataOffset = big.dataOffset! + keep + 512
            phantom.size = big.size - keep - 512
            manifest.files.insert(phantom, at: index + 1)
            manifest.uncompressedSize -= 512
            manifest.entryCount += 1
        }
        // Refused at the first header that disagrees: big.bin's, which says 5 MiB where the manifest says 1 MiB.
        #expect(message.contains("Contents/art/big.bin") && message.contains("disagrees with the signed package manifest"), "\(message)")
    }

    @Test func aTarEntryTheManifestLacksIsRefused() async throws {
        let fixture = try ChunkedFixture.standard()
        let message = try await Self.downloadFailure(fixture) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/readme.txt" }!
            manifest.uncompressedSize -= manifest.files[index].size
            manifest.files.remove(at: index)
            manifest.entryCount -= 1
        }
        // The entry's bytes exceed what the manifest declares (the tar rules' size cap), or it lies where no file is listed.
        #expect(message.contains("Contents/readme.txt")
            && (message.contains("not where the signed package manifest lists a file") || message.contains("were declared")), "\(message)")
    }

    @Test func aWrongFileHashWithRightChunksIsRefusedBeforeTheSwap() async throws {
        let fixture = try ChunkedFixture.standard()
        let message = try await Self.downloadFailure(fixture) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/levels/1.json" }!
            manifest.files[index].sha256 = String(repeating: "0", count: 64)
        }
        #expect(message.contains("Contents/levels/1.json") && message.contains("SHA-256"), "\(message)")
    }

    @Test func aWrongFileHashIsCaughtWhenTheFileWasResumedMidway() async throws {
        // A file whose bytes arrive over two runs is hashed as a whole only when the download ends (the first
        // run's parts are not in the resumed run's hash): its chunks are right, its SHA-256 is not.
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        let big = "Contents/art/big.bin"
        let lying = try fixture.alteredManifest { manifest in
            let index = manifest.files.firstIndex { $0.path == big }!
            manifest.files[index].sha256 = String(repeating: "0", count: 64)
        }
        try fixture.keepManifest(lying)
        let file = try #require(fixture.manifest.files.first { $0.path == big })
        let start = try #require(file.dataOffset)
        // The first reply stops inside big.bin and stays silent; the resumed one gets the rest.
        let server = try FaultServer(body: fixture.archive, faults: [.stall(at: 3 << 20, seconds: 200)], lifetime: 240)
        defer { server.stop() }
        var options = fastOptions(stall: 300)
        options.transfer.connections = 1
        options.transfer.maxConnections = 1
        let manager = try DownloadManager(store: fixture.store, options: options)
        try await manager.start()
        let id = fixture.manifest.productID
        try await manager.enqueue(fixture.product(manifest: lying), url: server.url(), plan: .chunks)
        #expect(try await ChunkedControlTests.wait(manager, id) { $0.downloadedBytes > start + (1 << 20) } != nil)
        await manager.pauseAndWait(id)
        _ = try #require(try await ChunkedControlTests.wait(manager, id) { $0.state == .paused })
        var durable: Int64 = 0
        let deadline = Date().addingTimeInterval(30)
        while durable == 0, Date() < deadline {
            durable = try #require(try fixture.store.ledger().record(id)).durableOffset
            try await Task.sleep(for: .milliseconds(20))
        }
        // Stopped after a checkpoint inside the file: part of it placed and durable, the rest still to fetch.
        #expect(durable > start && durable < start + file.size, "durable \(durable), \(big) at \(start)..<\(start + file.size)")

        await manager.resume(id)
        let ended = try #require(try await ChunkedControlTests.wait(manager, id) { !$0.state.isInFlight && $0.state != .paused })
        await manager.shutdown()
        #expect(server.records.count >= 2, "the download was resumed: \(server.records.map(\.range))")
        #expect(ended.state == .failed)
        let message = ended.error?.message ?? ""
        #expect(message.contains(big) && message.contains("SHA-256"), "\(message)")
        #expect(fixture.store.contentURL(forProductID: id) == nil, "nothing is swapped in")
        #expect(!FileManager.default.fileExists(atPath: fixture.tree.path), "a refused download keeps no tree")
    }
}
