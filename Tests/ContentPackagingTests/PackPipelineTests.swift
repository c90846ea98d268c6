@testable import ContentPackaging
import Crypto
import Foundation
import Testing
import TestSupport

private func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// The packer's threads (file reader, archive writer, output writer) and their buffer hand-overs.
@Suite("Pack pipeline")
struct PackPipelineTests {
    /// A package that needs many read buffers and several output buffers: one large incompressible
    /// file, hundreds of small ones (empty ones included) sharing buffers, nested directories.
    private func makeLargePackage(at root: URL) throws -> URL {
        var files: [String: Data] = [:]
        for index in 0..<300 {
            let count = index % 7 == 0 ? 0 : (index * 37) % 3000
            files["Contents/small/\(index / 50)/file-\(index).bin"] = PackageFixture.bytes(count: count, seed: UInt64(index + 1))
        }
        let folder = try PackageFixture.make(at: root, files: files)
        // 3 MiB + 17 bytes from /dev/urandom: more than the output thread's buffers hold together.
        let big = folder.appendingPathComponent("Contents/big.bin").path
        let fill = try CommandRunner.run("/bin/sh", ["-c", "head -c 3145745 /dev/urandom > '\(big)'"])
        try #require(fill.status == 0)
        return folder
    }

    @Test("a multi-buffer one-frame pack round-trips through bsdtar, hashes match, and packing again gives the same bytes")
    func multiBufferRoundTrip() throws {
        let directory = try TemporaryDirectory("pipeline")
        let folder = try makeLargePackage(at: directory.appending("pkg"))
        // One frame: the reader hashes the files and the compressing thread the archive.
        let one = try Packer(chunked: false).pack(folder: folder, outputDirectory: directory.appending("out1"))
        let two = try Packer(chunked: false).pack(folder: folder, outputDirectory: directory.appending("out2"))
        let bytes = try Data(contentsOf: one.archiveURL)
        #expect(bytes == (try Data(contentsOf: two.archiveURL)))
        #expect(bytes.count > 3 << 20)
        #expect(one.manifest.archiveSize == Int64(bytes.count))
        #expect(one.manifest.archiveSHA256 == sha256Hex(bytes))
        #expect(one.manifest.files.count == 302)  // 300 small, big.bin, ContentInfo.plist
        for file in one.manifest.files {
            let source = try Data(contentsOf: folder.appendingPathComponent(file.path))
            #expect(file.size == Int64(source.count), "\(file.path)")
            #expect(file.sha256 == sha256Hex(source), "\(file.path)")
        }
        #expect(one.manifest.files.map(\.path) == one.manifest.files.map(\.path).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        })
        let extracted = directory.appending("extracted")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        let untar = try CommandRunner.run("/usr/bin/bsdtar", ["-xf", one.archiveURL.path, "-C", extracted.path])
        #expect(untar.status == 0, "\(untar.stderr)")
        let diff = try CommandRunner.run("/usr/bin/diff", ["-r", folder.path, extracted.path])
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
    }

    @Test("a chunked pack hashes every file with its chunks: the manifest has each file's SHA-256, empty ones included")
    func chunkedFileHashes() throws {
        let directory = try TemporaryDirectory("pipeline")
        let folder = try makeLargePackage(at: directory.appending("pkg"))
        var packer = Packer(chunked: true)
        packer.chunking = try ChunkingParameters(minimum: 1 << 10, average: 4 << 10, maximum: 16 << 10)
        let one = try packer.pack(folder: folder, outputDirectory: directory.appending("out1"))
        let two = try packer.pack(folder: folder, outputDirectory: directory.appending("out2"))
        #expect(try Data(contentsOf: one.archiveURL) == Data(contentsOf: two.archiveURL))
        #expect(try Data(contentsOf: one.manifestURL) == Data(contentsOf: two.manifestURL))
        #expect((one.manifest.chunks?.count ?? 0) > 100)
        #expect(one.manifest.files.count == 302)
        for file in one.manifest.files {
            #expect(file.sha256 == sha256Hex(try Data(contentsOf: folder.appendingPathComponent(file.path))), "\(file.path)")
        }
        #expect(try PackageInspector().inspect(archive: one.archiveURL).problems.isEmpty)
    }

    @Test("the file reader delivers each file's bytes in order with its size, and its SHA-256 when it hashes")
    func readerSlices() throws {
        let directory = try TemporaryDirectory("reader")
        let contents: [(String, Data)] = [
            ("a.bin", PackageFixture.bytes(count: (FileReadAheadThread.bufferSize * 2) + 5, seed: 1)),
            ("b.txt", Data()),
            ("c.txt", Data("tiny".utf8)),
        ]
        for (name, data) in contents { try data.write(to: directory.appending(name)) }
        var entries = [FolderEntry(pathBytes: Array("sub".utf8), kind: .directory, size: 0)]
        entries += contents.map { FolderEntry(pathBytes: Array($0.0.utf8), kind: .regular, size: Int64($0.1.count)) }
        for hashing in [true, false] {
            let reader = FileReadAhead(entries: entries.map(PackEntry.init), root: directory.url.path, hashing: hashing)
            defer { reader.close() }
            var received: [Int: Data] = [:]
            var hashes: [Int: String] = [:]
            var firsts: [Int] = []
            var lasts: [Int] = []
            while let (slice, bytes) = try reader.next() {
                if slice.isFirst { firsts.append(slice.entryIndex) }
                if slice.isLast { lasts.append(slice.entryIndex) }
                received[slice.entryIndex, default: Data()].append(contentsOf: bytes)
                #expect(slice.fileSize == Int64(contents[slice.entryIndex - 1].1.count))
                if let hash = slice.sha256 { hashes[slice.entryIndex] = hash }
            }
            #expect(firsts == [1, 2, 3])
            #expect(lasts == [1, 2, 3])
            for (offset, (_, data)) in contents.enumerated() {
                #expect(received[offset + 1] ?? Data() == data)
                #expect(hashes[offset + 1] == (hashing ? sha256Hex(data) : nil))
            }
        }
    }

    @Test("a file that vanished before reading ends the stream with an error naming it")
    func readerMissingFile() throws {
        let directory = try TemporaryDirectory("reader")
        try Data("here".utf8).write(to: directory.appending("present.txt"))
        let entries = [
            FolderEntry(pathBytes: Array("present.txt".utf8), kind: .regular, size: 4),
            FolderEntry(pathBytes: Array("vanished.txt".utf8), kind: .regular, size: 4),
        ]
        let reader = FileReadAhead(entries: entries.map(PackEntry.init), root: directory.url.path)
        defer { reader.close() }
        // The failure ends the stream at once (data already read for earlier files is dropped).
        let error = #expect(throws: PackError.self) { _ = try reader.next() }
        #expect(error?.description.contains("vanished.txt") == true, "\(String(describing: error))")
        #expect(error?.description.contains("No such file") == true, "\(String(describing: error))")
        #expect(try reader.next() == nil)  // nothing follows a failure
    }

    @Test("closing the reader early, mid-file, stops it and returns")
    func readerClosedEarly() throws {
        let directory = try TemporaryDirectory("reader")
        var entries: [FolderEntry] = []
        for index in 0..<3 {
            let name = "large-\(index).bin"
            try Data(count: FileReadAheadThread.bufferSize * 4).write(to: directory.appending(name))
            entries.append(FolderEntry(pathBytes: Array(name.utf8), kind: .regular, size: Int64(FileReadAheadThread.bufferSize * 4)))
        }
        let reader = FileReadAhead(entries: entries.map(PackEntry.init), root: directory.url.path)
        let first = try reader.next()
        #expect(first?.0.entryIndex == 0)
        reader.close()
        reader.close()  // idempotent
    }

    @Test("the file reader checks content files for executable code and reports it on the last slice")
    func readerSniffsContent() throws {
        let directory = try TemporaryDirectory("reader")
        try FileManager.default.createDirectory(at: directory.appending("Contents"), withIntermediateDirectories: true)
        let contents: [(String, Data)] = [
            ("Contents/a.bin", PackageFixture.bytes(count: FileReadAheadThread.bufferSize + 10, seed: 3)),
            ("Contents/run", Data("#!/bin/sh\necho hi\n".utf8)),
            ("top.sh", Data("#!/bin/sh\n".utf8)),  // outside Contents/: not content, not checked here
        ]
        for (name, data) in contents { try data.write(to: directory.appending(name)) }
        let entries = contents.map { FolderEntry(pathBytes: Array($0.0.utf8), kind: .regular, size: Int64($0.1.count)) }
        let reader = FileReadAhead(entries: entries.map(PackEntry.init), root: directory.url.path)
        defer { reader.close() }
        var kinds: [Int: String?] = [:]
        while let (slice, _) = try reader.next() {
            if slice.isLast {
                kinds[slice.entryIndex] = slice.executableKind
            } else {
                #expect(slice.executableKind == nil)
            }
        }
        #expect(kinds == [0: nil, 1: "script with a '#!' line", 2: nil])
    }
}
