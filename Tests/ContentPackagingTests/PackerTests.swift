import ContentPackaging
import Crypto
import Foundation
import Glibc
import SystemSupport
import Testing
import TestSupport

/// Files of a small but varied package: nested dirs, an empty file, a non-ASCII name, > 1 MiB of data.
private let sampleFiles: [String: Data] = [
    "Contents/levels/level-01.json": Data("{\"id\": 1}\n".utf8),
    "Contents/levels/level-02.json": Data("{\"id\": 2}\n".utf8),
    "Contents/art/big.bin": PackageFixture.bytes(count: (1 << 20) + 12345, seed: 9),
    "Contents/empty.txt": Data(),
    "Contents/subtitles/caf\u{E9}.vtt": Data("WEBVTT\n".utf8),
    "Contents/a b/x.txt": Data("space".utf8),
    "Contents/a-b.txt": Data("dash".utf8),
]

private func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

private func pack(
    _ folder: URL, into output: URL, modificationTime: Int64 = Packer.defaultModificationTime, chunked: Bool = true
) throws -> PackResult {
    try Packer(modificationTime: modificationTime, chunked: chunked).pack(folder: folder, outputDirectory: output)
}

@Suite("Packer")
struct PackerTests {
    @Test("packing is reproducible across mtimes, permissions, ownership and creation order, in both formats")
    func deterministic() throws {
        let directory = try TemporaryDirectory("pack")
        let first = try PackageFixture.make(at: directory.appending("a/pkg"), files: sampleFiles)
        // Second copy: files created in reverse order, then every attribute that must not matter changed.
        let second = directory.appending("b/pkg")
        try FileManager.default.createDirectory(at: second.appendingPathComponent("Contents"), withIntermediateDirectories: true)
        for (path, data) in sampleFiles.sorted(by: { $0.key > $1.key }) {
            let url = second.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try FileManager.default.createDirectory(at: second.appendingPathComponent("Contents/unused-but-present"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: first.appendingPathComponent("Contents/unused-but-present"), withIntermediateDirectories: true)
        try PackageFixture.xmlContentInfo().write(to: second.appendingPathComponent("ContentInfo.plist"))
        let enumerator = FileManager.default.enumerator(atPath: second.path)!
        var index: time_t = 0
        for case let relative as String in enumerator {
            let path = second.appendingPathComponent(relative).path
            index += 1
            var times = [timeval(tv_sec: 1_234_567 * index, tv_usec: 999), timeval(tv_sec: 7_654_321 + index, tv_usec: 1)]
            #expect(utimes(path, &times) == 0)
            var info = stat()
            lstat(path, &info)
            #expect(chmod(path, info.st_mode & S_IFMT == S_IFDIR ? 0o700 : 0o600) == 0)
            if getuid() == 0 { #expect(lchown(path, 4321, 8765) == 0) }
        }
        for chunked in [true, false] {
            let one = try pack(first, into: directory.appending("out1-\(chunked)"), chunked: chunked)
            let two = try pack(second, into: directory.appending("out2-\(chunked)"), chunked: chunked)
            let oneBytes = try Data(contentsOf: one.archiveURL)
            let twoBytes = try Data(contentsOf: two.archiveURL)
            #expect(oneBytes == twoBytes, "chunked \(chunked)")
            #expect(try Data(contentsOf: one.manifestURL) == Data(contentsOf: two.manifestURL), "chunked \(chunked)")
            // Only the one-frame archive carries its SHA-256 (a chunked one is checked chunk by chunk).
            #expect(one.manifest.archiveSHA256 == (chunked ? nil : sha256Hex(oneBytes)))
            #expect(one.manifest.archiveSize == Int64(oneBytes.count))
        }
    }

    @Test("SOURCE_DATE_EPOCH changes the bytes, and the result is stable")
    func sourceDateEpoch() throws {
        let directory = try TemporaryDirectory("pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: sampleFiles)
        let epoch = Packer.modificationTime(environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(epoch == 1_700_000_000)
        #expect(Packer.modificationTime(environment: [:]) == Packer.defaultModificationTime)
        #expect(Packer.modificationTime(environment: ["SOURCE_DATE_EPOCH": "soon"]) == Packer.defaultModificationTime)
        let plain = try Data(contentsOf: pack(folder, into: directory.appending("o1")).archiveURL)
        let dated1 = try Data(contentsOf: pack(folder, into: directory.appending("o2"), modificationTime: epoch).archiveURL)
        let dated2 = try Data(contentsOf: pack(folder, into: directory.appending("o3"), modificationTime: epoch).archiveURL)
        #expect(plain != dated1)
        #expect(dated1 == dated2)
    }

    @Test("bsdtar extracts an identical tree (non-ASCII names included)")
    func roundTripThroughBsdtar() throws {
        let directory = try TemporaryDirectory("pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: sampleFiles)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Contents/empty-dir"), withIntermediateDirectories: true)
        let result = try pack(folder, into: directory.appending("out"))
        let extracted = directory.appending("extracted")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        let untar = try CommandRunner.run(
            "/usr/bin/bsdtar", ["-xf", result.archiveURL.path, "-C", extracted.path], environment: ["LC_ALL": "C.UTF-8"])
        #expect(untar.status == 0, "\(untar.stderr)")
        let diff = try CommandRunner.run("/usr/bin/diff", ["-r", folder.path, extracted.path])
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
        #expect(FileManager.default.fileExists(atPath: extracted.appendingPathComponent("Contents/subtitles/caf\u{E9}.vtt").path))
    }

    @Test("entries are exactly ContentInfo.plist + Contents/**, sorted, files 0644 / dirs 0755, no links")
    func archiveEntries() throws {
        let directory = try TemporaryDirectory("pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: sampleFiles)
        #expect(link(folder.appendingPathComponent("Contents/a-b.txt").path,
                     folder.appendingPathComponent("Contents/hardlink.txt").path) == 0)
        try Data("litter".utf8).write(to: folder.appendingPathComponent(".DS_Store"))
        chmod(folder.appendingPathComponent("Contents/empty.txt").path, 0o4755)
        let result = try pack(folder, into: directory.appending("out"))

        var reader = try ArchiveReader(path: result.archiveURL.path)
        var headers: [ArchiveEntryHeader] = []
        var contents: [String: Data] = [:]
        while let header = try reader.nextHeader() {
            headers.append(header)
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                if count == 0 { break }
                data.append(contentsOf: buffer[0..<count])
            }
            contents[header.path] = data
        }
        let expected = [
            "ContentInfo.plist", "Contents/", "Contents/a b/", "Contents/a b/x.txt", "Contents/a-b.txt", "Contents/art/",
            "Contents/art/big.bin", "Contents/empty.txt", "Contents/hardlink.txt", "Contents/levels/",
            "Contents/levels/level-01.json", "Contents/levels/level-02.json", "Contents/subtitles/",
            "Contents/subtitles/caf\u{E9}.vtt",
        ]
        #expect(headers.map(\.path) == expected)
        let trimmed = headers.map { $0.pathBytes.last == UInt8(ascii: "/") ? Array($0.pathBytes.dropLast()) : $0.pathBytes }
        #expect(trimmed == trimmed.sorted { $0.lexicographicallyPrecedes($1) })
        for header in headers {
            #expect(header.kind == .regular || header.kind == .directory, "\(header.path)")
            #expect(header.permissions == (header.kind == .directory ? 0o755 : 0o644), "\(header.path)")
            #expect(header.linkTarget == nil)
        }
        #expect(contents["Contents/hardlink.txt"] == Data("dash".utf8))
        #expect(contents["Contents/art/big.bin"] == sampleFiles["Contents/art/big.bin"])
        #expect(result.manifest.entryCount == expected.count)
        #expect(result.manifest.files.map(\.path) == expected.filter { !$0.hasSuffix("/") })
        for file in result.manifest.files {
            let source = try Data(contentsOf: folder.appendingPathComponent(file.path))
            #expect(file.size == Int64(source.count))
            #expect(file.sha256 == sha256Hex(source))
        }

        // Owner 0/0 without names, the fixed time, and no atime/ctime/xattr/ACL records anywhere.
        let listing = try CommandRunner.run(
            "/usr/bin/bsdtar", ["--numeric-owner", "-tvf", result.archiveURL.path], environment: ["LC_ALL": "C.UTF-8"])
        for line in listing.stdoutLines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields[2] == "0" && fields[3] == "0", "\(line)")
            #expect(line.contains("Jan  1  2000"), "\(line)")
        }
        let raw = try CommandRunner.run("/usr/bin/zstd", ["-dc", result.archiveURL.path])
        for marker in ["atime=", "ctime=", "LIBARCHIVE.", "SCHILY.", "uname=", "gname=", "root"] {
            #expect(!raw.stdout.contains(marker), "found \(marker)")
        }
    }

    @Test("an invalid folder writes nothing; a successful pack leaves no temp files")
    func noPartialFiles() throws {
        let directory = try TemporaryDirectory("pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        try Data("x".utf8).write(to: folder.appendingPathComponent("stray.txt"))
        let output = directory.appending("out")
        #expect(throws: PackError.self) { try pack(folder, into: output) }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: output.path))?.isEmpty ?? true)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("stray.txt"))
        let result = try pack(folder, into: output)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
            == [result.manifestURL.lastPathComponent, result.archiveURL.lastPathComponent].sorted())
        #expect(result.archiveURL.lastPathComponent == "com.example.test-1.0.tar.zst")
    }

    @Test("the temp-file registry sees the temp file during a pack and removes registered files")
    func temporaryFileRegistry() throws {
        let directory = try TemporaryDirectory("pack")
        let path = directory.appending("x.tmp").path
        try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
        let registry = TemporaryFileRegistry()
        registry.register(path)
        #expect(registry.registered == [path])
        registry.removeAll()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(registry.registered.isEmpty)
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        _ = try Packer().pack(folder: folder, outputDirectory: directory.appending("out"), registry: registry)
        #expect(registry.registered.isEmpty)
    }

    @Test("executable code found while packing: every problem listed, nothing left behind")
    func executablesFoundWhilePacking() throws {
        let directory = try TemporaryDirectory("pack")
        var files = sampleFiles
        files["Contents/z/tool"] = Data([0x7F, 0x45, 0x4C, 0x46] + [UInt8](repeating: 0, count: 60))
        files["Contents/b.sh"] = Data("#!/bin/sh\n".utf8)
        // A PE file whose signature sits past the reader's first buffer (found with a pread).
        var windows = Data([0x4D, 0x5A] + [UInt8](repeating: 0, count: 0x3A) + [0x20, 0xA1, 0x07, 0x00])  // e_lfanew 500 000
        windows.append(Data(count: 500_000 - windows.count))
        windows.append(Data([0x50, 0x45, 0, 0]))
        files["Contents/win.dat"] = windows
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: files)
        let output = directory.appending("out")
        let error = #expect(throws: PackError.self) { try pack(folder, into: output) }
        guard case .invalid(let problems) = error else {
            Issue.record("expected .invalid, got \(String(describing: error))")
            return
        }
        #expect(problems.map(\.path) == ["Contents/b.sh", "Contents/win.dat", "Contents/z/tool"])
        #expect(problems.allSatisfy { $0.message.contains("is executable code") })
        #expect((try? FileManager.default.contentsOfDirectory(atPath: output.path))?.isEmpty ?? true)
        // With a problem the validation before packing finds, the executables are still listed.
        try Data("x".utf8).write(to: folder.appendingPathComponent("stray.txt"))
        let both = #expect(throws: PackError.self) { try pack(folder, into: output) }
        #expect(both?.description.contains("stray.txt: is not allowed") == true)
        #expect(both?.description.contains("Contents/z/tool: is executable code") == true)
    }
}
