@testable import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// The partial-file writer: direct (aligned) and cached writes mixed at any offset and chunking
/// must leave exactly the bytes received, and a periodic flush keeps at most a sub-page tail.
@Suite("Transfer: partial file writer")
struct PartialFileWriterTests {
    @Test("any start offset and chunking gives the exact bytes, direct or cached", arguments: [
        (Int64(0), true), (Int64(0), false), (Int64(1234), true), (Int64(4096 * 3 + 17), true), (Int64(777), false),
    ])
    func exactBytes(start: Int64, direct: Bool) throws {
        let folder = try TemporaryDirectory.make(prefix: "writer")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f.partial").path
        let prefix = PackageFixture.bytes(count: Int(start), seed: 1)
        _ = FileManager.default.createFile(atPath: path, contents: prefix)
        let body = PackageFixture.bytes(count: 5 * (1 << 20) + 4321, seed: 2)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let writer = PartialFileWriter(fd: fd, path: path, offset: start, capacity: 1 << 20, direct: direct)
        var generator = SplitMix(seed: 3)
        var position = 0
        var flushes = 0
        while position < body.count {
            let count = min(body.count - position, Int(generator.next() % 300_000) + 1)
            try body[position..<(position + count)].withUnsafeBytes { try writer.append($0) }
            position += count
            if generator.next() % 4 == 0 {
                try writer.flush(all: false)
                flushes += 1
                // A periodic checkpoint keeps less than a page in memory, and the file offset is page-aligned after it.
                #expect(writer.buffered < 4096)
                #expect(writer.received == start + Int64(position))
            }
        }
        try writer.flush(all: true)
        #expect(writer.buffered == 0)
        #expect(flushes > 0)
        #expect(writer.fileOffset == start + Int64(body.count))
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.count == prefix.count + body.count)
        #expect(written == prefix + body)
    }
}
