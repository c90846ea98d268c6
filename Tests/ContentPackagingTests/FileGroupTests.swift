@testable import ContentPackaging
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
