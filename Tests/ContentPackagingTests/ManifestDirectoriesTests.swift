@testable import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The directory list of schema-2 manifests: every directory entry of the archive, sorted byte-wise, checked
/// with the chunk index, compared by `inspect`, and absent from older manifests.
@Suite("manifest directories")
struct ManifestDirectoriesTests {
    private static let files: [String: Data] = [
        "Contents/a/b/deep.txt": Data("deep\n".utf8),
        "Contents/Z/upper.txt": Data("upper\n".utf8),
        "Contents/é/accent.txt": Data("accent\n".utf8),
        "Contents/top.txt": Data("top\n".utf8),
    ]

    /// Packs the fixture (chunked or one frame) into `directory/out`.
    private static func pack(in directory: TemporaryDirectory, chunked: Bool) throws -> PackResult {
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.dirs", files: files)
        return try Packer(chunked: chunked).pack(folder: folder, outputDirectory: directory.appending("out"))
    }

    @Test("a chunked pack lists every directory entry, byte-wise sorted, empty ones included; one frame lists none")
    func packListsDirectories() throws {
        let directory = try TemporaryDirectory("dirs")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.dirs", files: Self.files)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Contents/empty"), withIntermediateDirectories: true)
        let chunked = try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("c"))
        let expected = ["Contents", "Contents/Z", "Contents/a", "Contents/a/b", "Contents/empty", "Contents/é"]
        #expect(chunked.manifest.directories == expected)
        #expect(chunked.manifest.entryCount == chunked.manifest.files.count + expected.count)
        #expect(chunked.manifest.directoryProblems().isEmpty)
        #expect(chunked.manifest.chunkIndexProblems().isEmpty)
        let decoded = try PackageManifest.decode(Data(contentsOf: chunked.manifestURL))
        #expect(decoded.directories == expected)
        #expect(try PackageInspector().inspect(archive: chunked.archiveURL).problems.isEmpty)
        let single = try Packer(chunked: false).pack(folder: folder, outputDirectory: directory.appending("s"))
        #expect(single.manifest.directories == nil)
        #expect(!String(decoding: try Data(contentsOf: single.manifestURL), as: UTF8.self).contains("directories"))
    }

    @Test("a manifest without a directory list decodes to nil and has no directory problems")
    func olderManifestsDecode() throws {
        let directory = try TemporaryDirectory("dirs")
        var manifest = try Self.pack(in: directory, chunked: true).manifest
        manifest.directories = nil
        let decoded = try PackageManifest.decode(manifest.encoded())
        #expect(decoded.directories == nil)
        #expect(decoded.directoryProblems().isEmpty)
        #expect(decoded.chunkIndexProblems().isEmpty)
    }

    @Test("unsafe, misplaced, unsorted, colliding, unlisted-parent and miscounted lists are refused, naming the path")
    func badListsAreRefused() throws {
        let directory = try TemporaryDirectory("dirs")
        let manifest = try Self.pack(in: directory, chunked: true).manifest
        let cases: [(String, (inout PackageManifest) -> Void)] = [
            ("'..' component", { $0.directories![1] = "Contents/../x" }),
            ("ends in '/'", { $0.directories![1] = "Contents/Z/" }),
            ("outside 'Contents/'", { $0.directories![0] = "Other" }),
            ("out of byte-wise order", { $0.directories!.swapAt(1, 2) }),
            ("out of byte-wise order", { $0.directories!.insert("Contents/Z", at: 2) }),
            ("collides with another directory", { $0.directories!.insert("Contents/z", at: 4); $0.entryCount += 1 }),
            ("parent that is not listed ('Contents/a')", { $0.directories!.remove(at: 2) }),
            ("parent directory that is not listed", { $0.directories!.removeLast() }),
            ("as a file and as a directory", { $0.directories!.append("Contents/top.txt"); $0.entryCount += 1 }),
            ("entryCount is", { $0.entryCount += 1 }),
        ]
        for (expected, change) in cases {
            var changed = manifest
            change(&changed)
            let problems = changed.directoryProblems()
            #expect(problems.contains { $0.contains(expected) }, "\(expected): \(problems)")
            #expect(changed.chunkIndexProblems().contains { $0.contains(expected) }, "\(expected)")
        }
    }

    @Test("inspect names a listed directory the archive lacks, and one the archive has that is not listed")
    func inspectComparesDirectories() throws {
        let directory = try TemporaryDirectory("dirs")
        let result = try Self.pack(in: directory, chunked: true)
        var manifest = result.manifest
        manifest.directories![1] = "Contents/Y"
        try manifest.encoded().write(to: result.manifestURL)
        let problems = try PackageInspector().inspect(archive: result.archiveURL).problems
        #expect(problems.contains { $0.path == "Contents/Y" && $0.message.contains("not in the archive") }, "\(problems)")
        #expect(problems.contains { $0.path == "Contents/Z" && $0.message.contains("not in the manifest") }, "\(problems)")
    }
}
