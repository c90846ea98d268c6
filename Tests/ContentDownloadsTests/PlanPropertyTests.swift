@testable import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import PropertyBased
import Testing
import TestSupport

/// Updates against what `pack --chunked` writes, without a network: for a random installed version and a random
/// next one (files changed in place, bytes inserted, files renamed, removed, added), the tree built from the
/// installed files plus the fetched chunks is the new version byte for byte, the fetch never takes a chunk that
/// no written file needs, and the installed folder is never changed.
@Suite("delta updates")
struct PlanPropertyTests {
    /// A version: its folder, manifest and archive bytes.
    struct Packed {
        let folder: URL
        let package: ChunkedPackage
        let archive: Data
    }

    static let small = try! ChunkingParameters(minimum: 1 << 10, average: 4 << 10, maximum: 16 << 10)

    static func pack(_ files: [String: Data], version: String, in root: URL) throws -> Packed {
        let folder = root.appendingPathComponent("v\(version)", isDirectory: true)
        try PackageFixture.make(at: folder, productID: "com.example.delta", version: version, files: files)
        var packer = Packer(chunked: true)
        packer.chunking = small
        let result = try packer.pack(folder: folder, outputDirectory: root.appendingPathComponent("out-\(version)"))
        let archive = try Data(contentsOf: result.archiveURL)
        let package = try ChunkedPackage(
            manifest: result.manifest, expectedLength: Int64(archive.count), expectedSHA256: result.manifest.archiveSHA256 ?? "",
            display: "test")
        return Packed(folder: folder, package: package, archive: archive)
    }

    /// 2–6 files of 0–60 000 bytes, then the next version: each file kept, changed in place, grown by an
    /// insertion, renamed or removed (by its seed), and one file added.
    static func versions(_ seeds: [UInt64]) -> (old: [String: Data], new: [String: Data]) {
        var old: [String: Data] = [:], new: [String: Data] = [:]
        for (index, seed) in seeds.enumerated() {
            let body = PackageFixture.bytes(count: Int((seed >> 8) % 60_000), seed: seed)
            let path = "Contents/\(seed % 2 == 0 ? "art/" : "")f\(index).bin"
            old[path] = body
            switch (seed >> 4) % 5 {
            case 0: new[path] = body
            case 1:
                var changed = body
                if !changed.isEmpty { changed[changed.count / 2] ^= 0xFF }
                new[path] = changed
            case 2:
                var grown = body
                grown.insert(contentsOf: PackageFixture.bytes(count: 700, seed: seed &+ 1), at: body.count / 3)
                new[path] = grown
            case 3: new["Contents/moved/f\(index).bin"] = body
            default: break
            }
        }
        new["Contents/added.bin"] = PackageFixture.bytes(count: Int(seeds[0] % 9_000), seed: 99)
        return (old, new)
    }

    @Test("the installed files plus the fetched chunks give the new version exactly")
    func anUpdateBuildsTheNewVersion() async {
        await propertyCheck(count: 30, input: Gen.uint64().array(of: 2...6)) { seeds in
            let root = try TemporaryDirectory.make(prefix: "delta-property")
            let (oldFiles, newFiles) = Self.versions(seeds)
            let old = try Self.pack(oldFiles, version: "1.0", in: root)
            let new = try Self.pack(newFiles, version: "2.0", in: root)
            var seal = timespec()
            clock_gettime(CLOCK_REALTIME, &seal)
            seal.tv_sec += 1  // every installed file was written before the seal
            let tree = root.appendingPathComponent("update").path
            let plan = try PlanBuilder(
                package: new.package,
                installed: (InstalledChunks(manifest: old.package.manifest), try InstalledFolder(path: old.folder.path, seal: seal)), treePath: tree,
                archiveLength: Int64(new.archive.count)
            ).run()
            let placed = try PlacedChunks(treePath: tree, chunkCount: new.package.chunks.count)
            let loop = try PlacementLoop(package: new.package, plan: plan, treePath: tree, placed: placed, settings: TransferSettings())
            var decoder = ChunkDecoder(maximumLength: new.package.largestChunk)
            // Chunks arrive in any order (many connections): in order, reversed, or interleaved from both ends.
            let order: [Int] = switch seeds[0] % 3 {
            case 0: plan.fetch
            case 1: plan.fetch.reversed()
            default: plan.fetch.enumerated().sorted { ($0.offset % 2, $0.offset) < ($1.offset % 2, $1.offset) }.map(\.element)
            }
            for index in order {
                let chunk = new.package.chunks[index]
                let bytes = try new.archive.withUnsafeBytes { archive in
                    Array(try decoder.decode(
                        UnsafeRawBufferPointer(rebasing: archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)]), as: chunk, index: index))
                }
                switch bytes.withUnsafeBytes({ loop.install(index: index, bytes: $0) }) {
                case .installed: break
                case .rejected(let error): throw error
                case .failed(let error): throw error
                }
            }
            if case .failure(let error) = loop.finish() { throw error }
            let diff = try diffTrees(new.folder, URL(fileURLWithPath: tree))
            #expect(diff.status == 0, "\(diff.stdout)")
            // Never more than the chunks that hold written files' data, and the installed folder is as it was.
            let written = plan.written.map { new.package.files[$0] }.filter { $0.size > 0 }
            for index in plan.fetch {
                let chunk = new.package.chunks[index]
                let end = chunk.uncompressedOffset + chunk.uncompressedLength
                #expect(written.contains { $0.dataOffset! < end && ChunkedPackage.end(of: $0) > chunk.uncompressedOffset })
            }
            let reference = try PackageFixture.make(
                at: root.appendingPathComponent("reference"), productID: "com.example.delta", version: "1.0", files: oldFiles)
            #expect(try diffTrees(reference, old.folder).status == 0, "the installed version changed")
        }
    }
}
