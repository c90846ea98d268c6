@testable import ContentDownloads
import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// The tar headers between files, checked against the manifest from chunks in any order: a packed archive always
/// passes; the same archive with a manifest that moves, renames, resizes, adds or drops a file never does.
@Suite("Header regions: properties")
struct HeaderRegionsPropertyTests {
    /// Every chunk of `packed`, decoded, fed in `order` to a check of every region; the first refusal, if any.
    static func check(_ package: ChunkedPackage, archive: Data, order: [Int]) -> InstallError? {
        var regions = HeaderRegions(package: package, fetched: Set(package.chunks.indices))
        var decoder = ChunkDecoder(maximumLength: package.largestChunk)
        for index in order {
            let chunk = package.chunks[index]
            let frame = [UInt8](archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)])
            let bytes: [UInt8]
            do {
                bytes = try frame.withUnsafeBytes { Array(try decoder.decode($0, as: chunk, index: index)) }
            } catch {
                Issue.record("decoding failed: \(error)")
                return nil
            }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyBytes(from: bytes)
            do throws(InstallError) {
                _ = try regions.take(chunk: index, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<bytes.count]))
            } catch {
                return error
            }
        }
        #expect(regions.complete, "every region was checked")
        return nil
    }

    static func files(_ seeds: [UInt64]) -> [String: Data] {
        var files: [String: Data] = [:]
        for (index, seed) in seeds.enumerated() {
            files["Contents/\(seed % 3 == 0 ? "deep/er/" : "")f\(index).bin"] = PackageFixture.bytes(count: Int((seed >> 8) % 40_000), seed: seed)
        }
        files["Contents/empty.txt"] = Data()
        return files
    }

    @Test func aPackedArchivePassesInAnyChunkOrder() async {
        await propertyCheck(count: 25, input: Gen.uint64().array(of: 1...6)) { seeds in
            let root = try TemporaryDirectory.make(prefix: "regions")
            let packed = try PlanPropertyTests.pack(Self.files(seeds), version: "1.0", in: root)
            var order = Array(packed.package.chunks.indices)
            var state = seeds[0] | 1
            for index in order.indices.reversed() {  // a seeded shuffle
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                order.swapAt(index, Int(state % UInt64(index + 1)))
            }
            #expect(Self.check(packed.package, archive: packed.archive, order: order) == nil)
            #expect(HeaderRegions.problems(in: packed.package).isEmpty)
        }
    }

    @Test func aManifestThatLiesAboutAFileIsRefused() async {
        await propertyCheck(count: 25, input: Gen.uint64().array(of: 2...6), Gen.uint64()) { seeds, lie in
            let root = try TemporaryDirectory.make(prefix: "regions-lie")
            let packed = try PlanPropertyTests.pack(Self.files(seeds), version: "1.0", in: root)
            var manifest = packed.package.manifest
            let index = Int(lie % UInt64(manifest.files.count))
            switch (lie >> 8) % 4 {
            case 0: manifest.files[index].path += "x"  // renamed
            case 1:  // resized (the total kept, so only the header can tell)
                manifest.files[index].size += 1
                manifest.uncompressedSize += 1
            case 2:  // dropped
                manifest.uncompressedSize -= manifest.files[index].size
                manifest.files.remove(at: index)
                manifest.entryCount -= 1
            default:  // a phantom listed where another file's data is
                var phantom = manifest.files[index]
                phantom.path = "Contents/phantom.bin"
                phantom.size = 0
                phantom.dataOffset! += 512
                manifest.files.append(phantom)
                manifest.entryCount += 1
            }
            guard let package = try? ChunkedPackage(
                manifest: manifest, expectedLength: Int64(packed.archive.count), expectedSHA256: manifest.archiveSHA256 ?? "", display: "test")
            else { return }  // refused as a whole already
            if !HeaderRegions.problems(in: package).isEmpty { return }  // refused before any request
            #expect(Self.check(package, archive: packed.archive, order: Array(package.chunks.indices)) != nil,
                    "the lie (\((lie >> 8) % 4) on \(packed.package.manifest.files[index].path)) went through")
        }
    }
}
