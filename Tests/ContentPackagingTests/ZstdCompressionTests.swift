@testable import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The archive's zstd frames, one per chunk: written by libzstd straight into the output buffers
/// (`ZstdFrameCompressor` behind `ArchiveSink`), each exactly what the zstd tool writes for its bytes.
@Suite("zstd compression")
struct ZstdCompressionTests {
    /// Writes a one-file archive, feeding the file's bytes in pieces of `chunk` bytes.
    private static func archive(
        _ data: Data, chunk: Int, level: Int = ArchiveWriter.defaultCompressionLevel, in directory: TemporaryDirectory
    ) throws -> Data {
        try indexedArchive(data, chunk: chunk, level: level, chunking: nil, in: directory).archive
    }

    /// ``archive(_:chunk:level:in:)`` cut into chunks by `chunking`, with its chunk index.
    private static func indexedArchive(
        _ data: Data, chunk: Int, level: Int = ArchiveWriter.defaultCompressionLevel, chunking: ChunkingParameters?,
        in directory: TemporaryDirectory
    ) throws -> (archive: Data, chunks: [ArchiveChunk]) {
        let path = directory.appending("chunk-\(chunk)-level-\(level).tar.zst").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: path, compressionLevel: level, chunking: chunking)
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
        let finished = try writer.finishIndexed()
        let chunks = finished.chunks
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(finished.size == Int64(written.count))
        #expect((finished.sha256 == nil) == (chunking != nil))  // chunked archives are not hashed whole
        return (written, chunks)
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

    @Test("each chunk's frame is what the zstd tool writes single-threaded at level 3 without a checksum for its bytes, and the archive decompresses to the tar")
    func sameAsZstdTool() throws {
        let directory = try TemporaryDirectory("zstd")
        let chunking = try ChunkingParameters(minimum: 64 << 10, average: 256 << 10, maximum: 1 << 20)
        let (archive, chunks) = try Self.indexedArchive(Self.content, chunk: 200_000, chunking: chunking, in: directory)
        #expect(chunks.count >= 3)
        // Boundaries and frames do not depend on how the tar stream is cut into writes either.
        #expect(try Self.indexedArchive(Self.content, chunk: 4_099, chunking: chunking, in: directory).archive == archive)
        let compressed = directory.appending("a.tar.zst").path
        try archive.write(to: URL(fileURLWithPath: compressed))
        let tar = directory.appending("a.tar").path
        let decompress = try CommandRunner.run("/usr/bin/zstd", ["-d", "-q", "-f", compressed, "-o", tar])
        #expect(decompress.status == 0, "\(decompress.stderr)")
        // From a pipe the tool does not know the size either, so it writes no content size.
        let tarBytes = try Data(contentsOf: URL(fileURLWithPath: tar))
        for (index, chunk) in chunks.enumerated() {
            let piece = directory.appending("chunk-\(index).tar").path
            let start = Int(chunk.uncompressedOffset)
            try tarBytes[start..<start + Int(chunk.uncompressedLength)].write(to: URL(fileURLWithPath: piece))
            let again = directory.appending("chunk-\(index).zst").path
            let recompress = try CommandRunner.run(
                "/bin/sh", ["-c", "/usr/bin/zstd -3 --single-thread --no-check -q -c < '\(piece)' > '\(again)'"])
            #expect(recompress.status == 0, "\(recompress.stderr)")
            let frame = archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)]
            #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == frame, "chunk \(index)")
        }
        #expect(chunks.last.map { Int($0.offset + $0.length) } == archive.count)
        #expect(chunks.last.map { Int($0.uncompressedOffset + $0.uncompressedLength) } == tarBytes.count)
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

    @Test("without chunking the archive is one frame: what the zstd tool writes single-threaded at level 3 without a checksum")
    func unchunkedIsOneFrame() throws {
        let directory = try TemporaryDirectory("zstd")
        let (archive, chunks) = try Self.indexedArchive(Self.content, chunk: 200_000, chunking: nil, in: directory)
        #expect(chunks.isEmpty)
        let compressed = directory.appending("one.tar.zst").path
        try archive.write(to: URL(fileURLWithPath: compressed))
        let tar = directory.appending("one.tar").path
        let decompress = try CommandRunner.run("/usr/bin/zstd", ["-d", "-q", "-f", compressed, "-o", tar])
        #expect(decompress.status == 0, "\(decompress.stderr)")
        let again = directory.appending("one-again.tar.zst").path
        let recompress = try CommandRunner.run(
            "/bin/sh", ["-c", "/usr/bin/zstd -3 --single-thread --no-check -q -c < '\(tar)' > '\(again)'"])
        #expect(recompress.status == 0, "\(recompress.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == archive)
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
