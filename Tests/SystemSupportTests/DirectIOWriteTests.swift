import CLinuxSystem
import SystemSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// The shared write loops: every byte lands whatever the mode, a length `O_DIRECT` refuses falls
/// back to the page cache (and says so), failures come back as the `errno`, and the writeback
/// shim reaches the kernel.
@Suite struct DirectIOWriteTests {
    @Test("direct or cached, an unaligned length still writes every byte", arguments: [true, false])
    func everyByteLands(tryDirect: Bool) throws {
        let folder = try TemporaryDirectory.make(prefix: "directio")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f").path
        var fd = tryDirect ? DirectIO.flag.map { open(path, O_WRONLY | O_CREAT | O_CLOEXEC | $0, 0o644) } ?? -1 : -1
        var direct = fd >= 0
        if fd < 0 { fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        #expect(fd >= 0)
        defer { close(fd) }
        let length = 3 * DirectIO.alignment + 100  // not a whole number of pages: O_DIRECT refuses it
        let buffer = DirectIO.allocateBuffer(byteCount: length)
        defer { buffer.deallocate() }
        for index in 0..<length { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
        #expect(DirectIO.writeAll(bytes, to: fd, direct: &direct) == 0)
        #expect(!direct, "an unaligned length must leave O_DIRECT")
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written == Data(bytes))
    }

    @Test func aFailedWriteReturnsItsErrno() throws {
        let folder = try TemporaryDirectory.make(prefix: "directio-fail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let bytes: [UInt8] = [1, 2, 3]
        var direct = false
        #expect(bytes.withUnsafeBytes { DirectIO.writeAll($0, to: fd, direct: &direct) } == EBADF)
        #expect(durableWrite(bytes, to: fd, path: path) == FileSystemError(operation: "write", path: path, errno: EBADF))
    }

    @Test func directorySyncNamesTheFailingCall() throws {
        let folder = try TemporaryDirectory.make(prefix: "directio-dir")
        defer { try? FileManager.default.removeItem(at: folder) }
        try DurableFile.syncDirectory(folder)
        let missing = folder.appendingPathComponent("nope")
        #expect(throws: FileSystemError(operation: "open", path: missing.path, errno: ENOENT)) {
            try DurableFile.syncDirectory(missing)
        }
    }

    @Test func startingWritebackReachesTheKernel() throws {
        let folder = try TemporaryDirectory.make(prefix: "directio-wb")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(fd) }
        let bytes = [UInt8](repeating: 9, count: 8192)
        #expect(durableWrite(bytes, to: fd, path: path) == nil)
        #expect(CLinuxSystem_startWriteback(fd, 0, 8192) == 0)
        #expect(CLinuxSystem_startWriteback(-1, 0, 8192) == -1 && errno == EBADF)
    }
}

/// ``DurableFile/writeAll(_:_:path:)`` of `bytes`, returning its error instead of throwing it.
private func durableWrite(_ bytes: [UInt8], to fd: Int32, path: String) -> FileSystemError? {
    bytes.withUnsafeBytes { buffer in
        do throws(FileSystemError) {
            try DurableFile.writeAll(fd, buffer, path: path)
            return nil
        } catch {
            return error
        }
    }
}
