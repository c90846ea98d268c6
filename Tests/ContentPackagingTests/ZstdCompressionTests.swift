@testable import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The archive's zstd frame: written by libzstd straight into the output buffers
/// (`ZstdFrameCompressor` behind `ArchiveSink`), replacing libarchive's zstd filter byte for byte.
@Suite("zstd compression")
struct ZstdCompressionTests {
    /// Writes a one-file archive, feeding the file's bytes in pieces of `chunk` bytes.
    private static func archive(
        _ data: Data, chunk: Int, level: Int = ArchiveWriter.defaultCompressionLevel, in directory: TemporaryDirectory
    ) throws -> Data {
        let path = directory.appending("chunk-\(chunk)-level-\(level).tar.zst").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: path, compressionLevel: level)
        try writer.writeHeader(
            ArchiveEntryHeader(pathBytes: Array("Contents".utf8), kind: .directory, size: 0, permissions: 0o755),
            modificationTime: 0)
        try writer.writeHeader(
            ArchiveEntryHeader(
                pathBytes: Array("Contents/data.bin".utf8), kind: .regular, size: Int64(data.count), permissions: 0o644),
            modificationTime: 0)
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunk, bytes.count)
                try writer.writeData(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
        }
        let digest = try writer.finish()
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(digest.length == Int64(written.count))
        return written
    }

    /// Half compressible text, half incompressible bytes: both kinds of zstd block, several output buffers.
    private static let content: Data = {
        var data = Data(String(repeating: "level data, level data, more level data\n", count: 40_000).utf8)
        data.append(PackageFixture.bytes(count: 1_500_000, seed: 7))
        return data
    }()

    @Test("the bytes do not depend on how the tar stream is cut into writes")
    func independentOfChunking() throws {
        let directory = try TemporaryDirectory("zstd")
        let whole = try Self.archive(Self.content, chunk: Self.content.count, in: directory)
        for chunk in [1_000_003, 131_072, 65_537, 4_096, 511] {
            #expect(try Self.archive(Self.content, chunk: chunk, in: directory) == whole, "chunk \(chunk)")
        }
        #expect(whole.count > ArchiveOutputThread.bufferSize * 2)  // several output buffers were filled
    }

    @Test("the frame is what the zstd tool writes single-threaded at level 3 without a checksum, and decompresses to the tar")
    func sameAsZstdTool() throws {
        let directory = try TemporaryDirectory("zstd")
        let archive = try Self.archive(Self.content, chunk: 200_000, in: directory)
        let compressed = directory.appending("a.tar.zst").path
        try archive.write(to: URL(fileURLWithPath: compressed))
        let tar = directory.appending("a.tar").path
        let decompress = try CommandRunner.run("/usr/bin/zstd", ["-d", "-q", "-f", compressed, "-o", tar])
        #expect(decompress.status == 0, "\(decompress.stderr)")
        // From a pipe the tool does not know the size either, so it writes no content size; libarchive
        // 3.6.2's zstd filter (which packed archives before) wrote exactly these bytes too.
        let again = directory.appending("again.tar.zst").path
        let recompress = try CommandRunner.run(
            "/bin/sh", ["-c", "/usr/bin/zstd -3 --single-thread --no-check -q -c < '\(tar)' > '\(again)'"])
        #expect(recompress.status == 0, "\(recompress.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == archive)
        // The frame header: magic, then a descriptor without the checksum flag (bit 2).
        #expect(Array(archive.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD])
        #expect(archive[4] & 0b100 == 0)
        let list = try CommandRunner.run("/usr/bin/bsdtar", ["-tvf", tar])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Contents/data.bin"))
        let extracted = directory.appending("x")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        let untar = try CommandRunner.run("/usr/bin/bsdtar", ["-xf", compressed, "-C", extracted.path])
        #expect(untar.status == 0, "\(untar.stderr)")
        #expect(try Data(contentsOf: extracted.appendingPathComponent("Contents/data.bin")) == Self.content)
    }

    @Test("other levels compress too, and a level libzstd does not know is an ArchiveError naming the range")
    func levels() throws {
        let directory = try TemporaryDirectory("zstd")
        let fast = try Self.archive(Self.content, chunk: 100_000, level: 1, in: directory)
        let strong = try Self.archive(Self.content, chunk: 100_000, level: 19, in: directory)
        #expect(fast != strong)
        #expect(strong.count < Self.content.count)
        let path = directory.appending("bad.tar.zst").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        let error = #expect(throws: ArchiveError.self) {
            _ = try ArchiveWriter(fileDescriptor: fd, displayPath: path, compressionLevel: 99)
        }
        #expect(error?.path == path)
        #expect(error?.message.contains("zstd level 99 is outside") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)  // nothing was written
    }
}
