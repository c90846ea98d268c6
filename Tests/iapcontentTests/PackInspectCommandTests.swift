import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

@Suite("iapcontent pack and inspect")
struct PackInspectCommandTests {
    /// Packs a small valid package with the CLI (`options` added); returns the archive path.
    private func packed(
        in directory: TemporaryDirectory, environment: [String: String] = [:], options: [String] = []
    ) throws -> String {
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.cli", version: "2.0",
            files: ["Contents/a.txt": Data("alpha\n".utf8), "Contents/sub/b.bin": PackageFixture.bytes(count: 5000, seed: 3)])
        let result = try CommandRunner.iapcontent(
            ["pack", folder.path, "--output", directory.appending("out").path] + options, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(result.stdoutLines.last)
    }

    @Test("pack prints the archive path as the last stdout line; inspect verifies it against the manifest")
    func packThenInspect() throws {
        let directory = try TemporaryDirectory("cli")
        let archive = try packed(in: directory)
        #expect(archive == directory.appending("out/com.example.cli-2.0.tar.zst").path)
        let manifest = try PackageManifest.decode(
            Data(contentsOf: directory.appending("out/com.example.cli-2.0.manifest")))
        let result = try CommandRunner.iapcontent(["inspect", archive])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.contains("product: com.example.cli"))
        #expect(result.stdoutLines.contains("version: 2.0"))
        #expect(result.stdoutLines.contains("archive sha256: \(try FileDigest.of(URL(fileURLWithPath: archive)).sha256)"))
        #expect(manifest.productID == "com.example.cli")
        #expect(result.stdoutLines.contains("entries: 5"))
        #expect(result.stdoutLines.contains("manifest: verified"))
        #expect(result.stdout.contains("Contents/sub/b.bin"))
    }

    @Test("pack writes a schema-2 manifest with a chunk index by default (--chunked changes nothing); inspect checks every chunk; --single-frame writes schema 1")
    func chunkedByDefault() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.chunked",
            files: ["Contents/big.bin": PackageFixture.bytes(count: 6 << 20, seed: 5)])
        func pack(_ name: String, _ options: [String]) throws -> CommandRunner.Result {
            try CommandRunner.iapcontent(["pack", folder.path, "--output", directory.appending(name).path] + options)
        }
        func manifest(_ name: String) throws -> PackageManifest {
            try PackageManifest.decode(Data(contentsOf: PackageNaming.manifestURL(
                besideArchive: directory.appending("\(name)/com.example.chunked-1.0.tar.zst"))))
        }
        let plain = try pack("d", [])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try manifest("d").schema == 2 && (manifest("d").chunks?.count ?? 0) >= 2)
        #expect(try manifest("d").archiveSHA256 == nil && manifest("d").directories == ["Contents"])
        let inspect = try CommandRunner.iapcontent(["inspect", try #require(plain.stdoutLines.last)])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdoutLines.contains("manifest: verified"))
        let chunked = try pack("c", ["--chunked"])
        #expect(chunked.status == 0, "\(chunked.stderr)")
        #expect(try Data(contentsOf: directory.appending("c/com.example.chunked-1.0.tar.zst"))
            == Data(contentsOf: directory.appending("d/com.example.chunked-1.0.tar.zst")))
        #expect(try manifest("c") == manifest("d"))
        let single = try pack("s", ["--single-frame"])
        #expect(single.status == 0, "\(single.stderr)")
        let schemaOne = try manifest("s")
        #expect(schemaOne.schema == 1 && schemaOne.chunks == nil && schemaOne.files.allSatisfy { $0.dataOffset == nil })
        #expect(schemaOne.archiveSHA256 != nil && schemaOne.directories == nil)
        #expect(try pack("x", ["--chunked", "--single-frame"]).status == 2)
    }

    @Test("SOURCE_DATE_EPOCH from the environment changes the archive")
    func sourceDateEpochFromEnvironment() throws {
        let plain = try TemporaryDirectory("cli")
        let dated = try TemporaryDirectory("cli")
        let plainBytes = try Data(contentsOf: URL(fileURLWithPath: packed(in: plain)))
        let datedBytes = try Data(contentsOf: URL(fileURLWithPath: packed(in: dated, environment: ["SOURCE_DATE_EPOCH": "1600000000"])))
        #expect(plainBytes != datedBytes)
    }

    @Test("the archive does not depend on the locale, even with non-ASCII names")
    func localeIndependent() throws {
        var digests: [Data] = []
        for locale in ["C", "C.UTF-8", "POSIX"] {
            let directory = try TemporaryDirectory("cli")
            let folder = try PackageFixture.make(
                at: directory.appending("pkg"),
                files: ["Contents/caf\u{E9}/na\u{EF}ve \u{6F22}\u{5B57}.txt": Data("unicode".utf8)])
            let result = try CommandRunner.iapcontent(
                ["pack", folder.path, "--output", directory.appending("out").path], environment: ["LC_ALL": locale])
            #expect(result.status == 0, "\(result.stderr)")
            digests.append(try Data(contentsOf: URL(fileURLWithPath: #require(result.stdoutLines.last))))
        }
        #expect(Set(digests).count == 1)
    }

    @Test("pack of an invalid folder exits 1 with the problems and writes nothing")
    func packInvalid() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        try Data("#!/bin/sh\n".utf8).write(to: folder.appendingPathComponent("Contents/x.sh"))
        let result = try CommandRunner.iapcontent(["pack", folder.path, "--output", directory.appending("out").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Contents/x.sh: is executable code"))
        #expect(result.stdout.isEmpty)
    }

    @Test("inspect detects a flipped archive byte through the manifest: a chunk-indexed archive by its content, a one-frame one by its SHA-256 too")
    func flippedByte() throws {
        for options in [[], ["--single-frame"]] {
            let directory = try TemporaryDirectory("cli")
            let archive = try packed(in: directory, options: options)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: archive))
            let result = try CommandRunner.iapcontent(["inspect", archive])
            #expect(result.status == 1, "\(options)")
            #expect(result.stderr.contains("SHA-256") || result.stderr.contains("damaged archive"), "\(result.stderr)")
            if !options.isEmpty { #expect(result.stderr.contains("archiveSHA256 is")) }
        }
    }

    @Test("inspect reads a manifest alone: a summary of the compact one, and --manifest-json prints it as JSON")
    func inspectManifest() throws {
        let directory = try TemporaryDirectory("cli")
        let archive = try packed(in: directory)
        let manifestPath = directory.appending("out/com.example.cli-2.0.manifest").path
        let summary = try CommandRunner.iapcontent(["inspect", manifestPath])
        #expect(summary.status == 0, "\(summary.stderr)")
        #expect(summary.stdoutLines.contains { $0.hasPrefix("encoding: compact, ") && $0.hasSuffix("schema 2") }, "\(summary.stdout)")
        #expect(summary.stdoutLines.contains("product: com.example.cli"))
        let json = try CommandRunner.iapcontent(["inspect", archive, "--manifest-json"])
        #expect(json.status == 0, "\(json.stderr)")
        let decoded = try PackageManifest.decode(Data(json.stdout.utf8))
        #expect(decoded == (try PackageManifest.decode(Data(contentsOf: URL(fileURLWithPath: manifestPath)))))
        try Data([0x89, 0x49, 0x41, 0x50, 0x4D, 0x0D, 0x0A, 0x1A, 1]).write(to: URL(fileURLWithPath: manifestPath))
        let cut = try CommandRunner.iapcontent(["inspect", manifestPath])
        #expect(cut.status == 1 && cut.stderr.contains("compression at file byte 9"), "\(cut.stderr)")
    }

    @Test("inspect detects a manifest whose file hash does not match")
    func manifestFileMismatch() throws {
        let directory = try TemporaryDirectory("cli")
        let archive = try packed(in: directory)
        let manifestURL = directory.appending("out/com.example.cli-2.0.manifest")
        var manifest = try PackageManifest.decode(Data(contentsOf: manifestURL))
        let index = try #require(manifest.files.firstIndex { $0.path == "Contents/a.txt" })
        manifest.files[index].sha256 = String(repeating: "0", count: 64)
        try manifest.encoded().write(to: manifestURL)
        let result = try CommandRunner.iapcontent(["inspect", archive])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Contents/a.txt: SHA-256 is"))
    }

    /// Builds a `.tar.zst` with bsdtar from `root`, listing `members`.
    private func bsdtarArchive(_ directory: TemporaryDirectory, root: URL, members: [String]) throws -> String {
        let archive = directory.appending("bad.tar.zst").path
        let result = try CommandRunner.run("/usr/bin/bsdtar", ["--zstd", "-cf", archive, "-C", root.path] + members)
        #expect(result.status == 0, "\(result.stderr)")
        return archive
    }

    @Test("inspect rejects an archive without ContentInfo.plist")
    func missingContentInfo() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        let result = try CommandRunner.iapcontent(["inspect", bsdtarArchive(directory, root: folder, members: ["Contents"])])
        #expect(result.status == 1)
        #expect(result.stderr.contains("ContentInfo.plist: missing from the archive"))
    }

    @Test("inspect rejects an extra root entry")
    func extraRootEntry() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        try Data("x".utf8).write(to: folder.appendingPathComponent("README"))
        let archive = try bsdtarArchive(directory, root: folder, members: ["ContentInfo.plist", "Contents", "README"])
        let result = try CommandRunner.iapcontent(["inspect", archive])
        #expect(result.status == 1)
        #expect(result.stderr.contains("README: regular file is not allowed here"))
    }

    @Test("inspect rejects a symlink entry")
    func symlinkEntry() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("Contents/escape").path, withDestinationPath: "../../etc/passwd")
        let archive = try bsdtarArchive(directory, root: folder, members: ["ContentInfo.plist", "Contents"])
        let result = try CommandRunner.iapcontent(["inspect", archive])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Contents/escape: is a symbolic link entry"))
    }

    @Test("inspect accepts a hard link to an earlier file (bsdtar stores a second name as a link) and rejects one to a later or missing file")
    func hardLinkEntry() throws {
        let directory = try TemporaryDirectory("cli")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        #expect(link(folder.appendingPathComponent("Contents/hello.txt").path,
                     folder.appendingPathComponent("Contents/twin.txt").path) == 0)
        let archive = try bsdtarArchive(directory, root: folder, members: ["ContentInfo.plist", "Contents"])
        let accepted = try CommandRunner.iapcontent(["inspect", archive])
        #expect(accepted.status == 0, "\(accepted.stderr)")

        var builder = TestArchiveBuilder.package(productID: "com.example.test", version: "1.0", files: ["hello.txt": Data("hello\n".utf8)])
        builder.hardlink("Contents/early.txt", target: "Contents/later.txt")
        builder.file("Contents/later.txt", text: "later")
        builder.hardlink("Contents/nowhere.txt", target: "Contents/missing.txt")
        let hostile = directory.appending("hostile.tar.zst")
        try builder.write(to: hostile)
        let refused = try CommandRunner.iapcontent(["inspect", hostile.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Contents/early.txt: is a hard link entry"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Contents/nowhere.txt: is a hard link entry"), "\(refused.stderr)")
    }

    @Test("inspect rejects duplicate and case-colliding entries written with the low-level writer")
    func duplicateEntries() throws {
        let directory = try TemporaryDirectory("cli")
        let path = directory.appending("dup.tar.zst").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: path)
        let plist = PackageFixture.xmlContentInfo()
        try Self.file(&writer, "ContentInfo.plist", plist)
        try writer.writeHeader(
            ArchiveEntryHeader(pathBytes: Array("Contents".utf8), kind: .directory, size: 0, permissions: 0o755),
            modificationTime: 0)
        try Self.file(&writer, "Contents/a.txt", Data("1".utf8))
        try Self.file(&writer, "Contents/a.txt", Data("2".utf8))
        try Self.file(&writer, "Contents/A.TXT", Data("3".utf8))
        _ = try writer.finish()
        let result = try CommandRunner.iapcontent(["inspect", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Contents/a.txt: appears more than once"))
        #expect(result.stderr.contains("Contents/A.TXT: collides with 'Contents/a.txt'"))
    }

    private static func file(_ writer: inout ArchiveWriter, _ name: String, _ data: Data) throws {
        try writer.writeHeader(
            ArchiveEntryHeader(pathBytes: Array(name.utf8), kind: .regular, size: Int64(data.count), permissions: 0o644),
            modificationTime: 0)
        try data.withUnsafeBytes { try writer.writeData($0) }
    }

    @Test("inspect of a file that is not an archive exits 1")
    func notAnArchive() throws {
        let directory = try TemporaryDirectory("cli")
        let path = directory.appending("junk.tar.zst")
        try Data("definitely not zstd".utf8).write(to: path)
        let result = try CommandRunner.iapcontent(["inspect", path.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(path.path))
    }
}
