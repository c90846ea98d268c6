import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Identical files stored once (``PackageManifest/LinkedFile``): a chunk plan writes both copies from the one range
/// of the tar stream and checks each hard-link header against the signed manifest; a manifest whose links lie is
/// refused before any request, naming the file, and a tar whose links disagree with the manifest while its chunks
/// arrive, with nothing of the download kept.
@Suite("Hostile linked files")
struct HostileLinkedManifestTests {
    /// A music file, a credits file and a file with a non-ASCII name (its link's header carries pax records) in the
    /// core and again in the German variant (a selection of German installs both copies), and a file of the
    /// credits' size with other bytes.
    static func fixture() throws -> ChunkedFixture {
        // Links from 4 KiB on (the default starts at a chunk's 256 KiB): the small files' links are checked too.
        try ChunkedFixture(
            productID: "com.example.chunked", files: Self.files, extraKeys: ["Variants": ["language": ["Default": "de"]]],
            linkedFileMinimum: 4 << 10)
    }

    static let files: [String: Data] = [
        "Contents/Music/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/Music/music.bin": PackageFixture.bytes(count: 2 << 20, seed: 9),
        "Contents/Music/other.txt": PackageFixture.bytes(count: 8 << 10, seed: 13),
        "Contents/Music/th\u{E8}me.bin": PackageFixture.bytes(count: 16 << 10, seed: 17),
        "Contents/V#language=de/th\u{E8}me.bin": PackageFixture.bytes(count: 16 << 10, seed: 17),
        "Contents/V#language=de/credits.txt": PackageFixture.bytes(count: 8 << 10, seed: 11),
        "Contents/V#language=de/music.bin": PackageFixture.bytes(count: 2 << 20, seed: 9),
        "Contents/readme.txt": Data("hello\n".utf8),
    ]

    static func index(_ path: String, in manifest: PackageManifest) -> Int {
        manifest.files.firstIndex { $0.path == path }!
    }

    @Test func bothCopiesInstallFromOneRangeAndEveryLinkHeaderIsChecked() async throws {
        let fixture = try Self.fixture()
        let links = try #require(fixture.manifest.linkedFiles)
        #expect(links.map { fixture.manifest.files[$0.file].path } == [
            "Contents/V#language=de/credits.txt", "Contents/V#language=de/music.bin", "Contents/V#language=de/th\u{E8}me.bin",
        ])
        try fixture.keepManifest()
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        // Without a selection the download writes every file at its own path: both copies, from one range.
        #expect(try diffTrees(fixture.folder, URL(fileURLWithPath: try #require(result.record?.archivePath))).status == 0)
        #expect(server.totalBodyBytesSent == fixture.archive.count, "every byte fetched once")
    }

    /// What planning says of the manifest with `change` applied (`nil`: accepted).
    static func refusal(_ change: (inout PackageManifest) -> Void) throws -> String? {
        let fixture = try Self.fixture()
        let refusal = try HostileManifestTests.planningRefusal(fixture, change)
        #expect(!FileManager.default.fileExists(atPath: fixture.tree.path + ".delta"), "no plan is kept")
        return refusal
    }

    @Test func aLinkToAFileOfAnotherSizeOrHashIsRefusedNamingTheFile() throws {
        let size = try #require(try Self.refusal { manifest in
            let file = Self.index("Contents/V#language=de/credits.txt", in: manifest), readme = Self.index("Contents/Music/music.bin", in: manifest)
            manifest.linkedFiles![0].source = readme
            manifest.files[file].dataOffset = manifest.files[readme].dataOffset
        })
        #expect(size.contains("Contents/V#language=de/credits.txt") && size.contains("size or SHA-256 differs"), "\(size)")
        let hash = try #require(try Self.refusal { manifest in
            let file = Self.index("Contents/V#language=de/credits.txt", in: manifest), other = Self.index("Contents/Music/other.txt", in: manifest)
            manifest.linkedFiles![0].source = other
            manifest.files[file].dataOffset = manifest.files[other].dataOffset
        })
        #expect(hash.contains("Contents/V#language=de/credits.txt") && hash.contains("size or SHA-256 differs"), "\(hash)")
    }

    @Test func aLinkOutOfRangeToItselfToALaterFileOrChainedIsRefused() throws {
        // The German music.bin, no longer linked, has its data inside the core one's: refused for that first.
        let outOfRange = try #require(try Self.refusal { $0.linkedFiles![1].file = 99 })
        #expect(outOfRange.contains("Contents/V#language=de/music.bin") && outOfRange.contains("inside the data before it"), "\(outOfRange)")
        var manifest = try Self.fixture().manifest
        manifest.linkedFiles![1].file = 99
        #expect(manifest.linkedFileProblems().contains { $0.contains("out of range") }, "\(manifest.linkedFileProblems())")
        let itself = try #require(try Self.refusal { manifest in manifest.linkedFiles![0].source = manifest.linkedFiles![0].file })
        #expect(itself.contains("Contents/V#language=de/credits.txt") && itself.contains("not an earlier file"), "\(itself)")
        let later = try #require(try Self.refusal { manifest in manifest.linkedFiles![0].source = Self.index("Contents/readme.txt", in: manifest) })
        #expect(later.contains("Contents/V#language=de/credits.txt") && later.contains("not an earlier file"), "\(later)")
        let chained = try #require(try Self.refusal { manifest in manifest.linkedFiles![1].source = manifest.linkedFiles![0].file })
        #expect(chained.contains("Contents/V#language=de/music.bin") && chained.contains("itself linked"), "\(chained)")
        let dropped = try #require(try Self.refusal { $0.linkedFiles = nil })
        #expect(dropped.contains("Contents/V#language=de/credits.txt") && dropped.contains("inside the data before it"), "\(dropped)")
    }

    @Test func aTarWhoseHardLinkNamesAnotherFileThanTheManifestIsRefusedWhileItsChunksArrive() async throws {
        let fixture = try Self.fixture()
        let message = try await HostileManifestTests.downloadFailure(fixture) { manifest in
            let index = Self.index("Contents/V#language=de/credits.txt", in: manifest)
            manifest.files[index].path = "Contents/V#language=de/credits2.txt"  // still in byte order: the tar's link says credits.txt
        }
        #expect(message.contains("Contents/V#language=de/credits.txt") && message.contains("Contents/V#language=de/credits2.txt"), "\(message)")
    }

    @Test func aTarHardLinkWhereTheManifestListsNoLinkedFileIsRefused() async throws {
        let fixture = try Self.fixture()
        let message = try await HostileManifestTests.downloadFailure(fixture) { manifest in
            // The manifest forgets the German credits.txt: its hard-link header is then an entry the manifest does not list.
            let index = Self.index("Contents/V#language=de/credits.txt", in: manifest)
            manifest.files.remove(at: index)
            manifest.linkedFiles = manifest.linkedFiles!.dropFirst().map { PackageManifest.LinkedFile(file: $0.file - 1, source: $0.source) }
            manifest.uncompressedSize -= 8 << 10
            manifest.entryCount -= 1
        }
        #expect(message.contains("Contents/V#language=de/credits.txt") && message.contains("hard link"), "\(message)")
    }
}
