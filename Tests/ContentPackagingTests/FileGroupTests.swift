@testable import ContentPackaging
import CZstd
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Small files grouped into frames of a bounded compressed size, cut between entries (``FileGroupBudget``): what
/// keeps an update of a few scattered small files from fetching the megabyte chunks around each of them.
@Suite("file groups")
struct FileGroupTests {
    /// `count` small files of 1–12 KiB, alternately word text (compresses several times) and random bytes.
    static func smallFiles(count: Int, seed: UInt64, folder: String = "Contents/items") -> [String: Data] {
        var files: [String: Data] = [:]
        for index in 0..<count {
            let size = 1024 + Int((UInt64(index) &* 2_654_435_761 &+ seed) % (11 << 10))
            let path = String(format: "%@/item-%04d.%@", folder, index, index % 2 == 0 ? "json" : "bin")
            files[path] = index % 2 == 0 ? PackageFixture.text(count: size, seed: seed &+ UInt64(index)) : PackageFixture.bytes(count: size, seed: seed &+ UInt64(index))
        }
        return files
    }

    /// The index of the chunk holding tar-stream byte `offset`.
    static func chunk(holding offset: Int64, in chunks: [ArchiveChunk]) -> Int? {
        chunks.firstIndex { $0.uncompressedOffset <= offset && offset < $0.uncompressedOffset + $0.uncompressedLength }
    }

    @Test("small files go into frames within the budget, each file's data in one chunk; a large file keeps chunks of its own")
    func groupsStayWithinTheBudget() throws {
        let directory = try TemporaryDirectory("groups")
        var files = Self.smallFiles(count: 240, seed: 7)
        files["Contents/items/large.bin"] = PackageFixture.bytes(count: 300 << 10, seed: 3)
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.groups", files: files)
        var packer = Packer()
        packer.fileGroups = try FileGroupBudget(frameBytes: 16 << 10)
        let result = try packer.pack(folder: folder, outputDirectory: directory.appending("out"))
        let manifest = result.manifest
        let chunks = try #require(manifest.chunks)
        #expect(manifest.chunking?.algorithm == "gear-fastcdc-1+file-groups-16384")
        #expect(manifest.chunkIndexProblems().isEmpty)
        #expect(try PackageInspector().inspect(archive: result.archiveURL).problems.isEmpty)

        var filesInChunk: [Int: Int] = [:]
        for file in manifest.files where file.size > 0 {
            let start = try #require(Self.chunk(holding: file.dataOffset!, in: chunks))
            let end = try #require(Self.chunk(holding: file.dataOffset! + file.size - 1, in: chunks))
            if file.path.hasSuffix("large.bin") {
                #expect(chunks[start].uncompressedOffset == file.dataOffset, "the large file's data starts a chunk")
                continue
            }
            #expect(start == end, "\(file.path) lies in one chunk")
            filesInChunk[start, default: 0] += 1
        }
        for (index, count) in filesInChunk where count > 1 {
            #expect(chunks[index].length <= 16 << 10, "chunk \(index) groups \(count) files in \(chunks[index].length) bytes")
        }
        #expect(filesInChunk.values.contains { $0 > 1 }, "small files share frames")
        #expect(chunks.count > 20, "240 small files of about 6 KiB need many 16 KiB frames")

        // Reproducible: the same folder gives the same bytes.
        let again = try packer.pack(folder: folder, outputDirectory: directory.appending("again"))
        #expect(try Data(contentsOf: again.archiveURL) == Data(contentsOf: result.archiveURL))
        #expect(again.manifest == manifest)
    }

    /// The size of `bytes` compressed whole into one zstd frame at the packer's level.
    static func frameSize(_ bytes: Data) throws -> Int {
        var compressor = try ZstdFrameCompressor(level: ArchiveWriter.defaultCompressionLevel)
        var output = [UInt8](repeating: 0, count: bytes.count + bytes.count / 128 + (64 << 10))
        return try bytes.withUnsafeBytes { input throws -> Int in
            try output.withUnsafeMutableBytes { out throws -> Int in
                var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
                var sink = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                while source.pos < source.size { try compressor.compress(&source, into: &sink) }
                while try !compressor.end(into: &sink) {}
                return sink.pos
            }
        }
    }

    @Test("a group ends only when the next entry does not fit: not with its bytes compressed on their own, and near the budget")
    func groupsEndOnlyWhenTheNextEntryDoesNotFit() throws {
        let directory = try TemporaryDirectory("groups")
        var files: [String: Data] = [:]
        for index in 0..<300 {  // text of 2-5 KiB: a few times smaller compressed, so the worst case of each is far off
            files[String(format: "Contents/text/page-%04d.txt", index)] =
                PackageFixture.text(count: 2048 + index % 7 * 512, seed: UInt64(index))
        }
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.fit", files: files)
        var packer = Packer()
        let budget: Int64 = 16 << 10
        let group = try FileGroupBudget(frameBytes: budget)
        packer.fileGroups = group
        let result = try packer.pack(folder: folder, outputDirectory: directory.appending("out"))
        let chunks = try #require(result.manifest.chunks)
        let tar = try CommandRunner.run("/bin/sh", ["-c", "zstd -d -q -c '\(result.archiveURL.path)' | base64 -w0"])
        let stream = try #require(Data(base64Encoded: tar.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let starts = result.manifest.files.compactMap(\.dataOffset).map { $0 - 512 }.sorted()  // each file's header
        #expect(chunks.count >= 8, "about 900 KiB of text makes many 16 KiB groups: \(chunks.count)")
        for index in chunks.indices.dropLast() {
            let chunk = chunks[index], next = chunks[index + 1]
            #expect(chunk.length <= budget, "chunk \(index): \(chunk.length) bytes")
            // The next group's first entry: its header up to the header after it.
            let entryEnd = starts.first { $0 > next.uncompressedOffset } ?? (next.uncompressedOffset + next.uncompressedLength)
            // The packer's own test: the frame, flushed (its length without the 3-byte end), and the entry compressed
            // on its own (level 1, as the sink's EntryTrial) do not fit.
            let entry = Data(stream[Int(next.uncompressedOffset)..<Int(entryEnd)])
            let alone = try entry.withUnsafeBytes { try EntryTrial(level: 1).compressedSize($0) }
            #expect(!group.fits(known: chunk.length - FileGroupBudget.frameEndBytes, alone: alone),
                    "chunk \(index) (\(chunk.length) bytes) had room for the next entry (\(alone) bytes alone)")
            // And compressed whole with the next entry, the group would be near its budget (the bound is loose by
            // what history saves the entry).
            let size = try Self.frameSize(Data(stream[Int(chunk.uncompressedOffset)..<Int(entryEnd)]))
            #expect(Int64(size) > budget - budget / 8, "chunk \(index) (\(chunk.length) bytes) ended early: \(size) with the next entry")
        }
    }

    @Test("standard tools unpack an archive of file groups unchanged")
    func standardToolsUnpackGroups() throws {
        let directory = try TemporaryDirectory("groups")
        let files = Self.smallFiles(count: 120, seed: 11)
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.groups", files: files)
        var packer = Packer()
        packer.fileGroups = try FileGroupBudget(frameBytes: 8 << 10)
        let result = try packer.pack(folder: folder, outputDirectory: directory.appending("out"))
        for (index, command) in ["/usr/bin/bsdtar -xf", "zstd -d -q -c '\(result.archiveURL.path)' | tar -x -f - -C"].enumerated() {
            let target = directory.appending("x\(index)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let line = index == 0 ? "\(command) '\(result.archiveURL.path)' -C '\(target.path)'" : "\(command) '\(target.path)'"
            let run = try CommandRunner.run("/bin/sh", ["-c", line])
            #expect(run.status == 0, "\(line): \(run.stderr)")
            for (path, data) in files {
                #expect(try Data(contentsOf: target.appendingPathComponent(path)) == data, "\(line): \(path)")
            }
        }
    }

    @Test("a budget below a tar header's worth is refused with the smallest accepted")
    func tinyBudgetRefused() {
        #expect(throws: ChunkingParametersError.self) { try FileGroupBudget(frameBytes: 1000) }
        #expect((try? FileGroupBudget(frameBytes: 4096)) != nil)
    }

    /// A group as the sink sees it, with a model compressor whose output per entry is a fixed share of its input.
    private struct ModelGroup {
        var known: Int64 = 0, unflushed: Int64 = 0, unflushedCompressed: Int64 = 0, entries = 0
        var exact: Int64 { known + unflushedCompressed }
    }

    @Test("the decision never lets a group of two or more entries pass its budget, whatever the entries compress to")
    func decisionsKeepTheBudget() async {
        let entries = Gen.int(in: 1...(40 << 10)).array(of: 1...80)
        let shares = Gen.int(in: 1...1000).array(of: 80...80)
        await propertyCheck(input: entries, shares, Gen.int(in: 4...96)) { sizes, permille, budgetKiB in
            let budget = try! FileGroupBudget(frameBytes: Int64(budgetKiB) << 10)
            var group = ModelGroup()
            for (index, size) in sizes.enumerated() {
                let bytes = Int64(size)
                // What zstd could make of it: from nothing to the worst case the bound allows.
                let compressed = max(1, FileGroupBudget.upperBound(bytes) * Int64(permille[index]) / 1000)
                var decision = budget.decide(known: group.known, unflushed: group.unflushed, entryBytes: bytes)
                if decision == .measure {
                    #expect(group.unflushed > 0)
                    group.known += group.unflushedCompressed
                    group.unflushed = 0
                    group.unflushedCompressed = 0
                    decision = budget.decide(known: group.known, unflushed: 0, entryBytes: bytes)
                    #expect(decision != .measure, "one flush settles the decision")
                }
                if decision == .cut {
                    #expect(group.entries > 0)
                    group = ModelGroup()
                }
                group.unflushed += bytes
                group.unflushedCompressed += compressed
                group.entries += 1
                #expect(group.entries == 1 || group.exact <= budget.frameBytes, "group of \(group.entries) at \(group.exact)")
            }
        }
    }
}
