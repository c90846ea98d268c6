@testable import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// Batched fsyncs of extracted files: no more than `capacity` descriptors stay open, every file is fsynced
/// and closed by `syncAll`, and a failed fsync names the file it belongs to while the others still close.
@Suite("Install: pending file fsyncs")
struct PendingFileSyncsTests {
    /// The file a descriptor refers to, so a check is not fooled by the number being reused (tests run in parallel).
    private struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    private static func identity(_ fd: Int32) -> Identity? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func identity(path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether `fd` is still open on the file that `identity` names.
    private static func isOpen(_ fd: Int32, on identity: Identity?) -> Bool {
        identity != nil && Self.identity(fd) == identity
    }

    /// A new empty file `name` in `folder`, open for writing: its path and descriptor.
    private static func createFile(_ name: String, in folder: URL) -> (path: String, fd: Int32) {
        let path = folder.appendingPathComponent(name).path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        return (path, fd)
    }

    /// A pipe (fsync refuses it with EINVAL): the read end to close afterwards and the write end to hand over.
    private static func makePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    private static func failure(_ operation: String, _ code: Int32, _ path: String) -> InstallError {
        .system(operation: operation, path: path, errno: code)
    }

    @Test("the oldest file is fsynced and closed once capacity is reached; syncAll closes the rest")
    func boundedWindow() throws {
        let folder = try TemporaryDirectory.make(prefix: "syncs")
        defer { try? FileManager.default.removeItem(at: folder) }
        var syncs = PendingFileSyncs(capacity: 3)
        var fds: [Int32] = []
        var files: [Identity?] = []
        for index in 0..<5 {
            let (path, fd) = Self.createFile("f\(index)", in: folder)
            #expect(write(fd, "file \(index)", 6) == 6)
            files.append(Self.identity(path: path))
            try syncs.add(fd, path: path, failure: Self.failure)
            fds.append(fd)
        }
        // Five added with room for three: the first two were fsynced and closed, in order.
        #expect(zip(fds, files).map { Self.isOpen($0, on: $1) } == [false, false, true, true, true])
        try syncs.syncAll(failure: Self.failure)
        #expect(zip(fds, files).allSatisfy { !Self.isOpen($0, on: $1) })
        for index in 0..<5 {
            let text = try String(contentsOf: folder.appendingPathComponent("f\(index)"), encoding: .utf8)
            #expect(text == "file \(index)")
        }
    }

    @Test("a descriptor fsync refuses (a pipe: EINVAL) fails with its own path; the other files still close")
    func failureNamesTheFile() throws {
        let folder = try TemporaryDirectory.make(prefix: "syncs")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ends = Self.makePipe()
        defer { close(ends.read) }
        let (good, goodFD) = Self.createFile("good", in: folder)
        let pipeFile = Self.identity(ends.write), goodFile = Self.identity(path: good)
        var syncs = PendingFileSyncs(capacity: 8)
        try syncs.add(ends.write, path: "Contents/not-a-file", failure: Self.failure)
        try syncs.add(goodFD, path: good, failure: Self.failure)
        do {
            try syncs.syncAll(failure: Self.failure)
            Issue.record("fsync of a pipe succeeded")
        } catch {
            guard case .system(let operation, let path, let code) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(operation == "fsync")
            #expect(path == "Contents/not-a-file")
            #expect(code == EINVAL)
        }
        #expect(!Self.isOpen(ends.write, on: pipeFile))
        #expect(!Self.isOpen(goodFD, on: goodFile))
    }

    @Test("descriptors still pending when the batch is dropped (an extraction that failed) are closed")
    func dropClosesPending() throws {
        let folder = try TemporaryDirectory.make(prefix: "syncs")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, fd) = Self.createFile("f", in: folder)
        let file = Self.identity(path: path)
        do {
            var syncs = PendingFileSyncs(capacity: 4)
            try syncs.add(fd, path: path, failure: Self.failure)
            #expect(Self.isOpen(fd, on: file))
        }
        #expect(!Self.isOpen(fd, on: file))
    }

    @Test("a file added when the oldest pending one fails is still owned and closed with the batch")
    func addWhileTheOldestFails() throws {
        let folder = try TemporaryDirectory.make(prefix: "syncs")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ends = Self.makePipe()
        defer { close(ends.read) }
        let (path, fd) = Self.createFile("next", in: folder)
        let file = Self.identity(path: path)
        do {
            var syncs = PendingFileSyncs(capacity: 1)
            try syncs.add(ends.write, path: "Contents/not-a-file", failure: Self.failure)
            #expect(throws: InstallError.self) { try syncs.add(fd, path: path, failure: Self.failure) }
            #expect(Self.isOpen(fd, on: file))
        }
        #expect(!Self.isOpen(fd, on: file))
    }
}
