import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

@Suite("ArchiveWriter")
struct ArchiveWriterTests {
    @Test("a write failure surfaces as ArchiveError naming errno and the path")
    func writeFailure() throws {
        let directory = try TemporaryDirectory("writer")
        let path = directory.appending("x.tar.zst").path
        try Data().write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)  // writes to a read-only descriptor fail with EBADF
        defer { close(fd) }
        let data = PackageFixture.bytes(count: 300_000, seed: 1)
        var caught: ArchiveError?
        do {
            try Self.writeOneFile(fd: fd, path: path, data: data)
        } catch {
            caught = error as? ArchiveError
        }
        let error = try #require(caught)
        #expect(error.errno == EBADF)
        #expect(error.path == path)
        #expect(error.description.contains("Bad file descriptor"))
    }

    private static func writeOneFile(fd: Int32, path: String, data: Data) throws {
        var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: path)
        try writer.writeHeader(
            ArchiveEntryHeader(pathBytes: Array("Contents/a".utf8), kind: .regular, size: Int64(data.count), permissions: 0o644),
            modificationTime: 0)
        try data.withUnsafeBytes { try writer.writeData($0) }
        _ = try writer.finish()
    }

    @Test("the digest is the SHA-256 and size of the bytes written")
    func digestMatchesFile() throws {
        let directory = try TemporaryDirectory("writer")
        let path = directory.appending("x.tar.zst").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: path)
        try writer.writeHeader(
            ArchiveEntryHeader(pathBytes: Array("Contents".utf8), kind: .directory, size: 0, permissions: 0o755),
            modificationTime: 0)
        let digest = try writer.finish()
        close(fd)
        let sum = try CommandRunner.run("/usr/bin/sha256sum", [path])
        #expect(sum.stdout.hasPrefix(digest.sha256 + " "))
        #expect(digest.length == Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count))
    }
}
