@testable import ContentDownloads
import ContentDelivery
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The same checks for an update as for an install from nothing: a lying manifest for the new version is refused
/// while planning, before any archive request, naming the file and the reason, and the installed version is
/// untouched (its files, their contents and their links).
@Suite("Hostile manifests: updates")
struct HostileUpdateManifestTests {
    /// Version 1.0 installed (its folder, sealed), version 2.0 packed; returns the refusal of planning 2.0 with its
    /// manifest changed by `change`, and checks the installed folder did not change.
    static func refusal(_ change: (inout PackageManifest) -> Void) throws -> String? {
        let root = try TemporaryDirectory.make(prefix: "hostile-update")
        let files: [String: Data] = [
            "Contents/a.bin": PackageFixture.bytes(count: 50_000, seed: 1),
            "Contents/levels/b.json": Data("{\"level\": 2}".utf8),
            "Contents/c.bin": PackageFixture.bytes(count: 30_000, seed: 3),
        ]
        var newFiles = files
        newFiles["Contents/c.bin"] = PackageFixture.bytes(count: 31_000, seed: 4)
        let old = try PlanPropertyTests.pack(files, version: "1.0", in: root)
        let new = try PlanPropertyTests.pack(newFiles, version: "2.0", in: root)
        var manifest = new.package.manifest
        change(&manifest)
        let snapshot = try snapshotTree(old.folder)
        var seal = timespec()
        clock_gettime(CLOCK_REALTIME, &seal)
        seal.tv_sec += 1
        let tree = root.appendingPathComponent("update").path
        defer { #expect((try? snapshotTree(old.folder)) == snapshot, "the installed version changed") }
        do {
            let package = try ChunkedPackage(
                manifest: manifest, expectedLength: Int64(new.archive.count), expectedSHA256: manifest.archiveSHA256 ?? "", display: "manifest")
            _ = try PlanBuilder(
                package: package,
                installed: (InstalledChunks(manifest: old.package.manifest), try InstalledFolder(path: old.folder.path, seal: seal)),
                treePath: tree, archiveLength: Int64(new.archive.count)
            ).run()
        } catch {
            #expect(!FileManager.default.fileExists(atPath: ChunkPlan.path(treePath: tree)), "no plan is kept")
            return "\(error)"
        }
        return nil
    }

    /// Every file's path, size and content hash under `folder`.
    static func snapshotTree(_ folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = FileManager.default.contents(atPath: url.path) { result[url.path] = sha256Hex(Array(data)) }
        }
        return result
    }

    @Test(arguments: ["Contents/bad\u{1}name.bin", "Contents/../escape.bin", "elsewhere/c.bin", "Contents/A.bin"])
    func aPathTheTarRulesRefuseIsRefusedBeforeAnyRequest(path: String) throws {
        let refusal = try #require(try Self.refusal { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/c.bin" }!
            manifest.files[index].path = path
        })
        #expect(refusal.contains("bad") || refusal.contains("escape") || refusal.contains("elsewhere") || refusal.contains("A.bin"), "\(refusal)")
    }

    @Test func lyingOffsetsAreRefusedBeforeAnyRequest() throws {
        let refusal = try #require(try Self.refusal { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/c.bin" }!
            manifest.files[index].dataOffset! += 1 << 20
        })
        #expect(refusal.contains("Contents/c.bin"), "\(refusal)")
    }

    @Test func aManifestForAnotherProductIsRefusedBeforeAnyRequest() throws {
        let root = try TemporaryDirectory.make(prefix: "hostile-update-product")
        let new = try PlanPropertyTests.pack(["Contents/a.bin": Data("a".utf8)], version: "2.0", in: root)
        var manifest = new.package.manifest
        manifest.productID = "com.example.other"
        let path = root.appendingPathComponent("m.json")
        try manifest.encoded().write(to: path)
        let product = CatalogProduct(
            productID: "com.example.delta", contentVersion: new.package.manifest.contentVersion, path: "archive.bin", url: nil,
            length: Int64(new.archive.count), sha256: sha256Hex(Array(new.archive)), uncompressedSize: new.package.manifest.uncompressedSize,
            entryCount: new.package.manifest.entryCount)
        #expect {
            _ = try Planner.checkedPackage(manifestPath: path.path, product: product)
        } throws: { "\($0)".contains("describes com.example.other 2.0, but the signed catalog offers com.example.delta 2.0") }
    }
}
