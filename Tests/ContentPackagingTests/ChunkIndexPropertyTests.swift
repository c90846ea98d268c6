@testable import ContentPackaging
import PropertyBased
import Testing

/// The chunk-index check (`PackageManifest.chunkIndexProblems()`) accepts every sound index and refuses
/// every index in which one number was moved: offsets, lengths, sizes or a file's data offset.
@Suite("chunk index check")
struct ChunkIndexPropertyTests {
    /// A sound schema-2 manifest: `lengths` chunks (compressed, uncompressed) and one file per chunk,
    /// each starting 512 bytes into its chunk.
    private static func manifest(_ lengths: [(Int64, Int64)]) -> PackageManifest {
        var chunks: [ArchiveChunk] = []
        var files: [PackageManifest.File] = []
        var offset: Int64 = 0
        var stream: Int64 = 0
        for (index, (compressed, uncompressed)) in lengths.enumerated() {
            chunks.append(ArchiveChunk(
                offset: offset, length: compressed, uncompressedOffset: stream, uncompressedLength: uncompressed,
                sha256: String(repeating: "a", count: 64)))
            files.append(PackageManifest.File(
                path: "Contents/f\(index)", size: uncompressed - 512, sha256: String(repeating: "b", count: 64),
                dataOffset: stream + 512))
            offset += compressed
            stream += uncompressed
        }
        return PackageManifest(
            productID: "com.example.p", contentVersion: ContentVersion("1.0")!, archiveName: "a.tar.zst",
            archiveSize: offset, archiveSHA256: String(repeating: "c", count: 64), uncompressedSize: 0,
            entryCount: files.count, files: files,
            chunking: ChunkingDescription(algorithm: "gear-fastcdc-1", minimum: 1024, average: 4096, maximum: 16_384),
            chunks: chunks)
    }

    /// 1–12 chunks of 1–20 000 compressed and 1 024–16 384 uncompressed bytes.
    private static let lengths = Gen.uint64().array(of: 1...12)
        .map { seeds in seeds.map { (Int64(1 + $0 % 20_000), Int64(1024 + ($0 >> 20) % 15_361)) } }

    @Test("a sound index has no problems")
    func soundIndexPasses() async {
        await propertyCheck(input: Self.lengths) { lengths in
            #expect(Self.manifest(lengths).chunkIndexProblems().isEmpty)
        }
    }

    @Test("numbers at the ends of Int64 are problems, never an overflow")
    func extremeNumbersAreRefused() {
        let extremes: [Int64] = [.max, .min, .max - 1, -1]
        for value in extremes {
            for field in 0..<6 {
                var manifest = Self.manifest([(100, 2048), (100, 2048)])
                switch field {
                case 0: manifest.chunks![0].offset = value
                case 1: manifest.chunks![0].length = value
                case 2: manifest.chunks![1].uncompressedLength = value
                case 3: manifest.files[1].dataOffset = value
                case 4: manifest.files[1].size = value
                default: manifest.archiveSize = value
                }
                #expect(!manifest.chunkIndexProblems().isEmpty, "field \(field) = \(value)")
            }
        }
    }

    @Test("moving any one offset, length or data offset by any amount is a problem")
    func anyMovedNumberIsRefused() async {
        await propertyCheck(input: Self.lengths, Gen.int(in: 0...4), Gen.int(in: 0...100), Gen.int(in: 1...5000)) {
            lengths, field, which, delta in
            var manifest = Self.manifest(lengths)
            let index = which % lengths.count
            let amount = Int64(delta)
            switch field {
            case 0: manifest.chunks![index].offset += amount
            case 1: manifest.chunks![index].length += amount
            case 2: manifest.chunks![index].uncompressedOffset -= amount
            case 3: manifest.chunks![index].uncompressedLength += 16_384  // past the maximum, or moves the next chunk
            default: manifest.files[index].dataOffset! += Int64(lengths[index].1)  // into the next file, or past the end
            }
            #expect(!manifest.chunkIndexProblems().isEmpty, "field \(field), chunk \(index), by \(amount)")
        }
    }
}
