import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The files of a product whose `de` and `fr` voice variants share a music file and a credits file, and differ in their intros
/// (`PackageFixture.bytes` seeds are made odd, so only odd seeds give different bytes).
func sharedVariantFiles(music: Int = 1 << 20) -> [String: Data] {
    [
        "Contents/core.bin": PackageFixture.bytes(count: 300 << 10, seed: 1),
        "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 512 << 10, seed: 3),
        "Contents/Voices#language=fr/intro.ogg": PackageFixture.bytes(count: 512 << 10, seed: 7),
        "Contents/Voices#language=de/music.ogg": PackageFixture.bytes(count: music, seed: 9),
        "Contents/Voices#language=fr/music.ogg": PackageFixture.bytes(count: music, seed: 9),
        "Contents/Voices#language=de/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/Voices#language=fr/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/Voices#language=en/intro.ogg": PackageFixture.bytes(count: 64 << 10, seed: 13),
    ]
}

/// The keys declaring the voices pack and its language axis.
var sharedVariantKeys: [String: Any] { [
    "Packs": ["voices": ["Policy": "essential", "Paths": ["Contents/Voices"]]],
    "Variants": ["language": ["Default": "en"]],
] }

@Suite("Identical files stored once")
struct LinkedFilePackTests {
    /// A packer that links copies from 4 KiB on (the default links only files with chunks of their own), so the
    /// small-file path of links is exercised too.
    static var smallLinks: Packer {
        var packer = Packer()
        packer.linkedFileMinimum = 4 << 10
        return packer
    }

    @Test("the fr copies of de's files are hard links: the archive is no larger than the distinct content, bsdtar extracts every file, packing again gives the same bytes")
    func storesIdenticalFilesOnce() throws {
        let directory = try TemporaryDirectory("linked")
        let files = sharedVariantFiles()
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: files, extraKeys: sharedVariantKeys)
        let result = try Self.smallLinks.pack(folder: folder, outputDirectory: directory.appending("out"))
        let manifest = result.manifest
        let paths = manifest.files.map(\.path)
        let links = (manifest.linkedFiles ?? []).map { "\(paths[$0.file]) -> \(paths[$0.source])" }
        #expect(links == [
            "Contents/Voices#language=fr/credits.txt -> Contents/Voices#language=de/credits.txt",
            "Contents/Voices#language=fr/music.ogg -> Contents/Voices#language=de/music.ogg",
        ])
        #expect(manifest.chunkIndexProblems().isEmpty)
        #expect(try PackageManifest.decode(try manifest.compactEncoded()) == manifest)
        #expect(try PackageManifest.decode(try manifest.encoded()) == manifest)
        #expect(try PackageManifest.decode(contentsOfFile: result.manifestURL.path) == manifest)
        #expect(try PackageInspector().inspect(archive: result.archiveURL).problems.isEmpty)

        // Random bytes do not compress: the archive holds each distinct byte once, plus tar headers and frames.
        let distinct = Set(files.values).reduce(0) { $0 + $1.count }
        let archiveSize = try #require(try FileManager.default.attributesOfItem(atPath: result.archiveURL.path)[.size] as? Int)
        #expect(archiveSize <= distinct + (32 << 10), "archive \(archiveSize) bytes, distinct content \(distinct)")
        var copying = Packer()
        copying.linkedFileMinimum = nil
        let copied = try copying.pack(folder: folder, outputDirectory: directory.appending("copied"))
        #expect(copied.manifest.linkedFiles == nil)
        #expect(copied.manifest.archiveSize - manifest.archiveSize >= Int64((1 << 20) + (8 << 10)))
        // By default only copies with chunks of their own are links: the 8 KiB credits keep their data, so a
        // French-only install never fetches a frame of German small files for them.
        let standard = try Packer().pack(folder: folder, outputDirectory: directory.appending("standard"))
        #expect(standard.manifest.linkedFiles?.map { standard.manifest.files[$0.file].path } == ["Contents/Voices#language=fr/music.ogg"])

        let extracted = directory.appending("extracted")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        let untar = try CommandRunner.run("/usr/bin/bsdtar", ["-xf", result.archiveURL.path, "-C", extracted.path])
        #expect(untar.status == 0, "\(untar.stderr)")
        let diff = try CommandRunner.run("/usr/bin/diff", ["-r", folder.path, extracted.path])
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
        let listing = try CommandRunner.run("/usr/bin/bsdtar", ["-tvf", result.archiveURL.path])
        #expect(listing.stdout.contains("Contents/Voices#language=fr/music.ogg link to Contents/Voices#language=de/music.ogg"), "\(listing.stdout)")

        let again = try Self.smallLinks.pack(folder: folder, outputDirectory: directory.appending("again"))
        #expect(try Data(contentsOf: again.archiveURL) == Data(contentsOf: result.archiveURL))
        #expect(try Data(contentsOf: again.manifestURL) == Data(contentsOf: result.manifestURL))
    }

    @Test("files under 4 KiB, copies outside variant folders, products without variants and one-frame archives keep their data")
    func keepsSmallFilesAndOneFrame() throws {
        let directory = try TemporaryDirectory("linked")
        var files = sharedVariantFiles(music: 64 << 10)
        files["Contents/a.txt"] = Data(repeating: 7, count: 100)
        files["Contents/b.txt"] = Data(repeating: 7, count: 100)
        files["Contents/Voices#language=de/small.txt"] = Data(repeating: 7, count: 100)
        files["Contents/Voices#language=fr/small.txt"] = Data(repeating: 7, count: 100)
        files["Contents/a.bin"] = PackageFixture.bytes(count: 64 << 10, seed: 21)
        files["Contents/b.bin"] = PackageFixture.bytes(count: 64 << 10, seed: 21)
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: files, extraKeys: sharedVariantKeys)
        let chunked = try Self.smallLinks.pack(folder: folder, outputDirectory: directory.appending("out"))
        #expect(chunked.manifest.linkedFiles?.count == 2)
        let single = try Packer(chunked: false).pack(folder: folder, outputDirectory: directory.appending("single"))
        #expect(single.manifest.linkedFiles == nil)
        #expect(try PackageInspector().inspect(archive: single.archiveURL).problems.isEmpty)
        let plain = try PackageFixture.make(
            at: directory.appending("plain"), files: ["Contents/a.bin": files["Contents/a.bin"]!, "Contents/b.bin": files["Contents/b.bin"]!])
        #expect(try Packer().pack(folder: plain, outputDirectory: directory.appending("plain-out")).manifest.linkedFiles == nil)
    }
}
