import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A chunk-indexed archive installs as a chunk plan from nothing: every chunk checked against the signed manifest
/// before a byte of it is written, file data written once into the tree, no archive copy, chunks fetched over
/// several connections in any order, resumable chunk by chunk.
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
        #expect(tree == fixture.tree.path)
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: tree)).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.store.transfersDirectory.path)
        #expect(!left.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tar.zst") }, "\(left)")
        #expect(server.totalBodyBytesSent == fixture.archive.count, "every byte fetched once")
        #expect(server.records.count > 1, "the chunks come in several range requests")
        #expect(server.records.allSatisfy { $0.status == 206 })
    }

    @Test func aDroppedConnectionCostsAtMostTheFrameInFlight() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let cut = Int(chunks[2].offset + chunks[2].length / 2)  // inside big.bin's data
        let server = try FaultServer(body: fixture.archive, faults: [.dropConnection(at: cut)])
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: try #require(result.record?.archivePath))).status == 0)
        let refetched = server.totalBodyBytesSent - fixture.archive.count
        #expect(refetched >= 0 && refetched <= Int(chunks.map(\.length).max()!), "re-fetched \(refetched) bytes")
    }

    @Test func aServerThatIgnoresRangeIsReadThroughOnceForTheChunksStillNeeded() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let server = try FaultServer(body: fixture.archive, faults: [.ignoreRange])
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: try #require(result.record?.archivePath))).status == 0)
        #expect(server.records.map(\.status) == [200], "one request, read through")
        #expect(server.totalBodyBytesSent == fixture.archive.count)
    }

    @Test func aChunkThatFailsItsHashIsFetchedOnceMoreThenTheDownloadFailsNamingIt() async throws {
        let fixture = try ChunkedFixture.standard()
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let bad = Int(chunks[1].offset + 10)
        // Every reply flips the byte: the chunk is fetched again, then the download fails naming it.
        let server = try FaultServer(body: fixture.archive, faults: Array(repeating: .wrongByte(at: bad), count: 40))
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("chunk 1 at archive byte \(chunks[1].offset)"), "\(message)")

        // Once only: a transient flip costs that chunk, not a restart.
        let healed = try ChunkedFixture.standard()
        try healed.keepManifest()
        let flaky = try FaultServer(body: healed.archive, faults: [.wrongByte(at: bad)])
        defer { flaky.stop() }
        let second = try await healed.download(from: flaky)
        #expect(second.final?.state == .finished, "\(second.final?.error?.message ?? "")")
        #expect(try diffTrees(healed.folder, URL(fileURLWithPath: try #require(second.record?.archivePath))).status == 0)
        let refetched = flaky.totalBodyBytesSent - healed.archive.count
        #expect(refetched >= 0 && refetched <= Int(chunks.map(\.length).max()!) * 2, "re-fetched \(refetched) bytes")
    }

    @Test func tarHeadersThatDisagreeWithTheManifestAreRefusedAndNothingIsKept() async throws {
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
        #expect(!FileManager.default.fileExists(atPath: fixture.tree.path), "a refused download keeps no tree")
        let manifest = fixture.store.manifestFile(productID: fixture.manifest.productID, version: fixture.manifest.contentVersion.description)
        #expect(!FileManager.default.fileExists(atPath: manifest.path), "nor its manifest")
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
        #expect(result.final?.error?.message.contains("at archive byte") == true, "\(result.final?.error?.message ?? "")")

        // A chunk index that does not add up is refused while planning, before any request.
        let gap = try ChunkedFixture.standard()
        let broken = try gap.alteredManifest { $0.chunks![2].offset += 1 }
        #expect {
            try gap.keepManifest(broken)
        } throws: { error in
            "\(error)".contains("chunk 2 starts at archive byte")
        }
    }
}
