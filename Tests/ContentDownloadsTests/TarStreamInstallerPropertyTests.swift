@testable import ContentDownloads
import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// The in-place installer against what `iapcontent pack --chunked` writes: for random trees (long, nested and
/// non-ASCII names, empty files and folders), however the verified tar stream is split, and from whichever
/// restart point an interrupted install continues, the tree it makes is the packed folder, byte for byte.
@Suite("tar stream installer")
struct TarStreamInstallerPropertyTests {
    /// A packed random package: its folder, manifest and decoded chunks.
    struct Packed {
        let folder: URL
        let package: ChunkedPackage
        let chunks: [[UInt8]]
    }

    /// 1–6 files (0–40 000 bytes) under names of 1–3 components, some long and some not ASCII.
    static let trees = Gen.uint64().array(of: 1...6)

    static func pack(_ seeds: [UInt64]) throws -> Packed {
        let root = try TemporaryDirectory.make(prefix: "tar-install")
        let folder = root.appendingPathComponent("source", isDirectory: true)
        var files: [String: Data] = [:]
        for (index, seed) in seeds.enumerated() {
            let depth = Int(seed % 3)
            let long = seed >> 8 % 4 == 0 ? String(repeating: "l", count: 90 + Int(seed % 60)) : "d\(seed % 5)"
            let name = (seed >> 12) % 3 == 0 ? "fïle-\(index).bin" : "f\(index).bin"
            let path = (["Contents"] + Array(repeating: long, count: depth) + [name]).joined(separator: "/")
            files[path] = PackageFixture.bytes(count: Int((seed >> 20) % 40_000) * Int(seed % 7 == 0 ? 0 : 1), seed: seed)
        }
        try PackageFixture.make(at: folder, productID: "com.example.tar", version: "1.0", files: files)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Contents/empty/inner"), withIntermediateDirectories: true)
        var packer = Packer(chunked: true)
        packer.chunking = try ChunkingParameters(minimum: 1 << 10, average: 4 << 10, maximum: 16 << 10)
        let result = try packer.pack(folder: folder, outputDirectory: root.appendingPathComponent("out"))
        let archive = try Data(contentsOf: result.archiveURL)
        let package = try ChunkedPackage(
            manifest: result.manifest, expectedLength: Int64(archive.count),
            expectedSHA256: FileDigest.of(result.archiveURL).sha256, display: "test")
        var decoder = ChunkDecoder(maximumLength: package.largestChunk)
        let chunks = try package.chunks.enumerated().map { index, chunk in
            try archive.withUnsafeBytes { bytes in
                Array(try decoder.decode(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(chunk.offset)..<Int(chunk.offset + chunk.length)]), as: chunk, index: index))
            }
        }
        return Packed(folder: folder, package: package, chunks: chunks)
    }

    /// Installs chunks `range` of `packed` into `tree` from the restart point at `range.lowerBound`, in pieces of `piece` bytes.
    static func install(_ packed: Packed, into tree: String, chunks range: Range<Int>, piece: Int, finish: Bool) throws {
        let start = packed.package.chunks[range.lowerBound].uncompressedOffset
        let position = try #require(ChunkedPackage.restartState(at: start, files: packed.package.files))
        let staging = try StagingTree(path: tree, wipe: range.lowerBound == 0, expectedBytes: packed.package.manifest.uncompressedSize)
        var installer = try TarStreamInstaller(package: packed.package, tree: staging, at: position, streamOffset: start)
        for chunk in packed.chunks[range] {
            var offset = 0
            while offset < chunk.count {
                let end = min(chunk.count, offset + piece)
                try chunk.withUnsafeBytes { try installer.consume(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
                offset = end
            }
        }
        if finish { try installer.finish() } else { try installer.sync() }
    }

    @Test("any split of the stream installs the packed folder exactly")
    func anySplitInstallsTheFolder() async {
        await propertyCheck(count: 25, input: Self.trees, Gen.int(in: 1...70_000)) { seeds, piece in
            let packed = try Self.pack(seeds)
            let tree = packed.folder.deletingLastPathComponent().appendingPathComponent("tree").path
            try Self.install(packed, into: tree, chunks: 0..<packed.chunks.count, piece: piece, finish: true)
            let diff = try diffTrees(packed.folder, URL(fileURLWithPath: tree))
            #expect(diff.status == 0, "\(diff.stdout)")
        }
    }

    @Test("an install stopped after any chunk continues from its restart point to the same tree")
    func resumingFromARestartPointInstallsTheFolder() async {
        await propertyCheck(count: 25, input: Self.trees, Gen.uint64()) { seeds, cut in
            let packed = try Self.pack(seeds)
            let count = packed.chunks.count
            let stopAfter = Int(cut % UInt64(count))  // chunks 0..<stopAfter are written, then the process "dies"
            let restart = packed.package.restartChunk(atOrBefore: min(stopAfter, count - 1))
            #expect(restart <= stopAfter && packed.package.isRestartPoint[restart])
            let tree = packed.folder.deletingLastPathComponent().appendingPathComponent("tree").path
            try Self.install(packed, into: tree, chunks: 0..<stopAfter, piece: 8192, finish: false)
            try Self.install(packed, into: tree, chunks: restart..<count, piece: 8192, finish: true)
            let diff = try diffTrees(packed.folder, URL(fileURLWithPath: tree))
            #expect(diff.status == 0, "\(diff.stdout)")
        }
    }
}
