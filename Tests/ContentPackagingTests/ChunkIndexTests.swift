@testable import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Schema-2 archives: a chunk index that covers the archive and the tar stream, that standard tools
/// ignore, and that `inspect` checks the way a client will use it — so a lying index is caught.
@Suite("chunk-indexed archives")
struct ChunkIndexTests {
    /// A package big enough for several chunks (10 MiB of incompressible data, one file of text, small files).
    private static let files: [String: Data] = [
        "Contents/big.bin": PackageFixture.bytes(count: 10 << 20, seed: 21),
        "Contents/text.txt": Data(String(repeating: "forest level, tile 7\n", count: 30_000).utf8),
        "Contents/small/a.json": Data("{\"a\": 1}\n".utf8),
        "Contents/small/b.json": Data("{\"b\": 2}\n".utf8),
    ]

    /// Packs the package into `directory/out`; returns the pack result.
    private static func pack(in directory: TemporaryDirectory) throws -> PackResult {
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.chunks", files: files)
        return try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("out"))
    }

    /// Rewrites the manifest beside `result`'s archive with `change` applied, then inspects the archive.
    private static func inspect(_ result: PackResult, after change: (inout PackageManifest) -> Void) throws -> [String] {
        var manifest = result.manifest
        change(&manifest)
        try manifest.encoded().write(to: result.manifestURL)
        return try PackageInspector().inspect(archive: result.archiveURL).problems.map(\.message)
    }

    @Test("the manifest indexes several chunks that cover the archive and the tar stream; every file has its data offset")
    func indexCoversEverything() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let manifest = result.manifest
        let chunks = try #require(manifest.chunks)
        #expect(manifest.schema == 2)
        #expect(manifest.chunking == ChunkingParameters.standard.manifestDescription(fileGroups: .standard))
        #expect(chunks.count >= 3)
        #expect(manifest.chunkIndexProblems().isEmpty)
        #expect(manifest.files.allSatisfy { $0.dataOffset != nil })
        #expect(try PackageInspector().inspect(archive: result.archiveURL).problems.isEmpty)
        // Content-defined: the small files share a chunk instead of having one each.
        let small = manifest.files.filter { $0.path.hasPrefix("Contents/small/") }.compactMap(\.dataOffset)
        let holding = small.map { offset in chunks.firstIndex { $0.uncompressedOffset <= offset && offset < $0.uncompressedOffset + $0.uncompressedLength } }
        #expect(Set(holding).count == 1)
    }

    @Test("standard tools unpack the chunked archive unchanged: bsdtar, tar --zstd, and zstd -d | tar -x")
    func standardToolsUnpackIt() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let archive = result.archiveURL.path
        let commands = [
            "/usr/bin/bsdtar -xf '\(archive)' -C",
            "tar --zstd -xf '\(archive)' -C",
            "zstd -d -q -c '\(archive)' | tar -x -C",
        ]
        for (index, command) in commands.enumerated() {
            let target = directory.appending("x\(index)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let run = try CommandRunner.run("/bin/sh", ["-c", "\(command) '\(target.path)'"])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            for (path, data) in Self.files {
                #expect(try Data(contentsOf: target.appendingPathComponent(path)) == data, "\(command): \(path)")
            }
        }
    }

    @Test("a chunk index that lies about an offset or a length is refused, naming the chunk and the byte")
    func lyingOffsetsAreRefused() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let shifted = try Self.inspect(result) { $0.chunks![1].offset += 1 }
        #expect(shifted.contains { $0.contains("chunk 1 starts at archive byte") && $0.contains("expected") }, "\(shifted)")
        let longer = try Self.inspect(result) { $0.chunks![0].uncompressedLength += 512 }
        #expect(longer.contains { $0.contains("chunk 1 starts at tar-stream byte") }, "\(longer)")
        let huge = try Self.inspect(result) { $0.chunks![0].uncompressedLength = 5 << 20 }
        #expect(huge.contains { $0.contains("more than the maximum") }, "\(huge)")
        let short = try Self.inspect(result) { $0.chunks!.removeLast() }
        #expect(short.contains { $0.contains("the chunks end at archive byte") }, "\(short)")
    }

    @Test("a chunk index cannot make a reader allocate: a huge chunking maximum or frame length is refused before any read")
    func hugeDeclarationsAreRefused() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let bigMaximum = try Self.inspect(result) { $0.chunking!.maximum = 1 << 40 }
        #expect(bigMaximum.contains { $0.contains("chunking maximum 1099511627776 is outside") }, "\(bigMaximum)")
        let bigFrame = try Self.inspect(result) { manifest in
            manifest.chunks![0].length = 1 << 40
            manifest.archiveSize += (1 << 40) - result.manifest.chunks![0].length
        }
        #expect(bigFrame.contains { $0.contains("larger than any chunk") } || bigFrame.contains { $0.contains("archiveSize") }, "\(bigFrame)")
        var manifest = result.manifest
        manifest.chunks![0].length = 1 << 40
        manifest.archiveSize += (1 << 40) - result.manifest.chunks![0].length
        #expect(manifest.chunkIndexProblems().contains { $0.contains("chunk 0 at archive byte 0 is a 1099511627776-byte frame") })
    }

    @Test("a chunk whose bytes do not match its SHA-256, or a file not where the index says, is refused")
    func lyingContentIsRefused() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let wrongHash = try Self.inspect(result) { $0.chunks![2].sha256 = String(repeating: "0", count: 64) }
        #expect(wrongHash.contains { $0.hasPrefix("chunk 2 at archive byte") && $0.contains("the index says 0000") }, "\(wrongHash)")
        let moved = try Self.inspect(result) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/big.bin" }!
            manifest.files[index].dataOffset! += 512
        }
        #expect(moved.contains { $0.hasPrefix("Contents/big.bin") }, "\(moved)")
        let restored = try Self.inspect(result) { _ in }
        #expect(restored.isEmpty, "\(restored)")
    }

    @Test("a manifest without a chunk index (schema 1) still inspects")
    func schemaOneStillInspects() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let sha256 = try FileDigest.of(result.archiveURL).sha256
        let problems = try Self.inspect(result) { manifest in
            manifest.schema = 1
            manifest.archiveSHA256 = sha256  // schema 1 carries it, schema 2 does not
            manifest.directories = nil
            manifest.chunks = nil
            manifest.chunking = nil
            for index in manifest.files.indices { manifest.files[index].dataOffset = nil }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("ChunkDecoder refuses a frame that is not zstd, or decodes to another length than declared")
    func decoderRefusesBadFrames() throws {
        let directory = try TemporaryDirectory("chunks")
        let result = try Self.pack(in: directory)
        let archive = try Data(contentsOf: result.archiveURL)
        let chunk = try #require(result.manifest.chunks?.first)
        var decoder = ChunkDecoder(maximumLength: 4 << 20)
        let frame = archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)]
        try frame.withUnsafeBytes { (bytes) throws in
            #expect(try decoder.decode(bytes, as: chunk, index: 0).count == Int(chunk.uncompressedLength))
            var shorter = chunk
            shorter.uncompressedLength -= 1
            #expect(throws: ChunkError.self) { _ = try decoder.decode(bytes, as: shorter, index: 0) }
            var longer = chunk
            longer.uncompressedLength += 1
            let error = #expect(throws: ChunkError.self) { _ = try decoder.decode(bytes, as: longer, index: 0) }
            #expect(error?.description.contains("decodes to \(chunk.uncompressedLength) bytes") == true, "\(String(describing: error))")
        }
        try Data(repeating: 7, count: 100).withUnsafeBytes { (garbage) throws in
            let error = #expect(throws: ChunkError.self) { _ = try decoder.decode(garbage, as: chunk, index: 5) }
            #expect(error?.description.hasPrefix("chunk 5 at archive byte 0 is not a zstd frame") == true, "\(String(describing: error))")
        }
    }
}
