import ContentPackaging
import Foundation
import Testing
import TestSupport

/// What `pack` writes beside each archive: the compact manifest for a chunk-indexed archive, JSON for a
/// one-frame one, never both; and every reader finds the one that is there.
@Suite("compact manifest from pack")
struct CompactManifestPackTests {
    private static let files: [String: Data] = [
        "Contents/levels/level-01.json": Data("{\"id\": 1}\n".utf8),
        "Contents/art/big.bin": PackageFixture.bytes(count: 300_000, seed: 3),
        "Contents/caf\u{E9}/menu.txt": Data("menu".utf8),
        "Contents/empty.txt": Data(),
    ]

    @Test("a chunk-indexed pack writes <name>.manifest in the compact format; it decodes to the packed manifest")
    func chunkedPackWritesCompact() throws {
        let directory = try TemporaryDirectory("compact-pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: Self.files)
        let result = try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("out"))
        #expect(result.manifestURL.lastPathComponent == "com.example.test-1.0.manifest")
        let data = try Data(contentsOf: result.manifestURL)
        #expect(PackageManifest.isCompact(data))
        #expect(try PackageManifest.decode(data) == result.manifest)
        #expect(PackageNaming.manifestURL(besideArchive: result.archiveURL) == result.manifestURL)
        let json = try result.manifest.encoded()
        #expect(data.count * 3 < json.count, "compact \(data.count) bytes, JSON \(json.count)")
    }

    @Test("a one-frame pack writes JSON and removes the compact manifest an earlier pack left, and back")
    func formatsReplaceEachOther() throws {
        let directory = try TemporaryDirectory("compact-pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: Self.files)
        let output = directory.appending("out")
        let chunked = try Packer(chunked: true).pack(folder: folder, outputDirectory: output)
        let single = try Packer(chunked: false).pack(folder: folder, outputDirectory: output)
        #expect(single.manifestURL.lastPathComponent == "com.example.test-1.0.manifest.json")
        #expect(!FileManager.default.fileExists(atPath: chunked.manifestURL.path))
        #expect(!PackageManifest.isCompact(try Data(contentsOf: single.manifestURL)))
        #expect(PackageNaming.manifestURL(besideArchive: single.archiveURL) == single.manifestURL)
        _ = try Packer(chunked: true).pack(folder: folder, outputDirectory: output)
        #expect(!FileManager.default.fileExists(atPath: single.manifestURL.path))
    }

    @Test("a JSON manifest of a chunk-indexed archive still reads, and encodes to the same manifest compactly")
    func jsonStillReads() throws {
        let directory = try TemporaryDirectory("compact-pack")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: Self.files)
        let result = try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("out"))
        let json = try result.manifest.encoded()
        #expect(try PackageManifest.decode(json) == result.manifest)
        #expect(try result.manifest.compactEncoded() == (try Data(contentsOf: result.manifestURL)))
    }
}
