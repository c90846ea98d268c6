@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A chunk install creates each file with data when its first part is placed (one `openat` for a small file
/// written whole, its full length at once otherwise): whatever order and shape its parts come in, every file ends
/// at the length and mode the manifest gives, zeros as holes, and a file cut by a dropped connection is resumed.
@Suite("File creation")
struct FileCreationTests {
    /// Files of every shape a part can take: empty, tiny, all zeros (small, and across several chunks), data then a
    /// zero tail, and data across chunks.
    static func fixture() throws -> ChunkedFixture {
        var tail = PackageFixture.bytes(count: 1 << 20, seed: 11)
        tail.append(Data(count: 3 << 20))
        return try ChunkedFixture(files: [
            "Contents/empty.txt": Data(),
            "Contents/tiny.txt": Data("x".utf8),
            "Contents/zeros/small.bin": Data(count: 100),
            "Contents/zeros/large.bin": Data(count: 5 << 20),
            "Contents/zero-tail.bin": tail,
            "Contents/data/big.bin": PackageFixture.bytes(count: 3 << 20, seed: 12),
            "Contents/data/small.json": Data("{\"a\": 1}".utf8),
        ])
    }

    /// Every file of the fixture in `tree`: its length, mode 0644, its bytes; a zero file's blocks hold no data.
    static func expectTree(_ tree: String, of fixture: ChunkedFixture) throws {
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: tree)).status == 0)
        for file in fixture.manifest.files where !file.path.hasSuffix("/") {
            var info = stat()
            let path = tree + "/" + file.path
            #expect(stat(path, &info) == 0, "\(file.path) exists")
            #expect(Int64(info.st_size) == file.size, "\(file.path): \(info.st_size) bytes, the manifest says \(file.size)")
            #expect(info.st_mode & 0o777 == 0o644, "\(file.path): mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        var large = stat()
        #expect(stat(tree + "/Contents/zeros/large.bin", &large) == 0)
        #expect(Int64(large.st_blocks) * 512 < 1 << 20, "5 MiB of zeros is a hole, not \(large.st_blocks * 512) bytes on disk")
    }

    @Test func everyFileEndsAtItsLengthAndModeWithZerosAsHoles() async throws {
        let fixture = try Self.fixture()
        try fixture.keepManifest()
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        try Self.expectTree(try #require(result.record?.archivePath), of: fixture)
    }

    @Test func aFileCutByADroppedConnectionIsResumedToItsLength() async throws {
        let fixture = try Self.fixture()
        try fixture.keepManifest()
        // A cut inside the data of each chunk: whichever file that chunk feeds is left part-written, then resumed.
        let chunks = try #require(fixture.manifest.chunks)
        let faults = chunks.prefix(6).map { FaultServer.Fault.dropConnection(at: Int($0.offset + $0.length / 2)) }
        let server = try FaultServer(body: fixture.archive, faults: faults)
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        try Self.expectTree(try #require(result.record?.archivePath), of: fixture)
    }

    @Test func theUmaskIsReadFromTheProcessStatus() {
        #expect(StagingTree.umask(inStatus: "Name:\tx\nUmask:\t0022\nState:\tR\n") == 0o022)
        #expect(StagingTree.umask(inStatus: "Umask:\t0077\n") == 0o077)
        #expect(StagingTree.umask(inStatus: "Name:\tx\n") == nil)
        #expect(StagingTree.umask(inStatus: "Umask:\t\n") == nil)
        #expect(StagingTree.umask(inStatus: "Umask:\t0x22\n") == nil)
    }
}
