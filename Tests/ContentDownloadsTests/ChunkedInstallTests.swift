import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A chunk-indexed archive installs as it arrives: every chunk checked against the signed manifest before a
/// byte of it is written, file data written once into the tree, no archive copy, resumable inside a file.
@Suite("Chunked install")
struct ChunkedInstallTests {
    @Test func theTreeIsByteIdenticalAndNoArchiveIsWritten() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        let tree = try #require(result.record?.archivePath)
        #expect(tree == fixture.store.treeDirectory(productID: fixture.manifest.productID).path)
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: tree)).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.store.transfersDirectory.path)
        #expect(!left.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tar.zst") }, "\(left)")
        #expect(server.totalBodyBytesSent == fixture.archive.count)
    }

    @Test func aDroppedConnectionResumesInsideAFileAtAChunkStart() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let cut = Int(chunks[2].offset + chunks[2].length / 2)  // inside big.bin's data
        let server = try FaultServer(body: fixture.archive, faults: [.dropConnection(at: cut)])
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: try #require(result.record?.archivePath))).status == 0)
        let records = server.records
        #expect(records.count == 2)
        let resumedAt = try #require(records.last?.range.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) })
        #expect(chunks.contains { Int($0.offset) == resumedAt }, "resumed at \(resumedAt), not a chunk start")
        #expect(resumedAt > 0 && cut - resumedAt <= Int(chunks.map(\.length).max()!), "re-fetched \(cut - resumedAt) bytes")
    }

    @Test func aServerThatIgnoresRangeIsReadFromTheStartAndTheKnownBytesDropped() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let server = try FaultServer(
            body: fixture.archive, faults: [.dropConnection(at: Int(chunks[3].offset) + 100), .ignoreRange])
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: try #require(result.record?.archivePath))).status == 0)
        #expect(server.records.map(\.status) == [200, 200])
    }

    @Test func aChunkThatFailsItsHashIsFetchedOnceMoreThenTheDownloadFailsNamingIt() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let bad = Int(chunks[1].offset + 10)
        // Every reply flips the byte: the first failure retries from the durable offset, the second is final.
        let server = try FaultServer(body: fixture.archive, faults: Array(repeating: .wrongByte(at: bad), count: 6))
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("chunk 1 at archive byte \(chunks[1].offset)"), "\(message)")
        #expect(server.records.count == 2)
        // The retry continues from the restart point before the bad chunk (what was written before it stays).
        let resumed = server.records.last?.range.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) } ?? 0
        #expect(resumed <= chunks[1].offset, "the retry asked for \(server.records.last?.range ?? "everything")")

        // Once only: a transient flip is repaired by the second fetch.
        let healed = try ChunkedFixture.standard()
        try healed.keepManifest()
        let flaky = try FaultServer(body: healed.archive, faults: [.wrongByte(at: bad)])
        defer { flaky.stop() }
        let second = try await healed.download(from: flaky)
        #expect(second.final?.state == .finished, "\(second.final?.error?.message ?? "")")
        #expect(try diffTrees(healed.folder, URL(fileURLWithPath: try #require(second.record?.archivePath))).status == 0)
    }

    @Test func tarHeadersThatDisagreeWithTheManifestAreRefusedBeforeTheirDataIsWritten() async throws {
        let fixture = try ChunkedFixture.standard()
        // The signed manifest says big.bin is one byte shorter than its tar header (and than the chunks) say.
        let lying = try fixture.alteredManifest { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/art/big.bin" }!
            manifest.files[index].size -= 1
            manifest.uncompressedSize -= 1
        }
        try fixture.keepManifest(lying)
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server, product: fixture.product(manifest: lying))
        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("Contents/art/big.bin") && message.contains("disagrees with the signed package manifest"), "\(message)")
        let tree = fixture.store.treeDirectory(productID: fixture.manifest.productID)
        #expect(!FileManager.default.fileExists(atPath: tree.appendingPathComponent("Contents/art/big.bin").path))
    }

    @Test func aChunkIndexThatLiesAboutOffsetsOrLengthsIsRefusedAsAWhole() async throws {
        let fixture = try ChunkedFixture.standard()
        // Chunk 1 is said to be 10 bytes longer and chunk 2 to start 10 bytes later: consistent, but false.
        let shifted = try fixture.alteredManifest { manifest in
            manifest.chunks![1].length += 10
            manifest.chunks![2].offset += 10
            manifest.chunks![2].length -= 10
        }
        try fixture.keepManifest(shifted)
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server, product: fixture.product(manifest: shifted))
        #expect(result.final?.state == .failed)
        #expect(result.final?.error?.message.contains("chunk 1 at archive byte") == true, "\(result.final?.error?.message ?? "")")

        let gap = try ChunkedFixture.standard()
        let broken = try gap.alteredManifest { $0.chunks![2].offset += 1 }
        try gap.keepManifest(broken)
        let second = try FaultServer(body: gap.archive)
        defer { second.stop() }
        let refused = try await gap.download(from: second, product: gap.product(manifest: broken))
        #expect(refused.final?.state == .failed)
        #expect(refused.final?.error?.message.contains("chunk 2 starts at archive byte") == true, "\(refused.final?.error?.message ?? "")")
        #expect(second.records.isEmpty, "nothing is fetched for a manifest that does not add up")
    }
}
