@testable import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The archive-wide SHA-256: one-frame (schema 1) manifests carry it and are verified by it; chunk-indexed
/// (schema 2) manifests leave it out, since their clients verify the catalog, the manifest and each chunk.
@Suite("archive SHA-256 by schema")
struct ArchiveSHA256Tests {
    private static let files: [String: Data] = [
        "Contents/a.bin": PackageFixture.bytes(count: 300_000, seed: 5),
        "Contents/b.txt": Data("b\n".utf8),
    ]

    /// Packs the fixture into `directory/name`.
    private static func pack(_ directory: TemporaryDirectory, _ name: String, chunked: Bool) throws -> PackResult {
        let folder = directory.appending("pkg")
        if !FileManager.default.fileExists(atPath: folder.path) {
            try PackageFixture.make(at: folder, productID: "com.example.sha", files: files)
        }
        return try Packer(chunked: chunked).pack(folder: folder, outputDirectory: directory.appending(name))
    }

    @Test("a chunked manifest has no archiveSHA256 key and inspects clean; a one-frame manifest has the archive's")
    func chunkedManifestsLeaveItOut() throws {
        let directory = try TemporaryDirectory("sha")
        let chunked = try Self.pack(directory, "c", chunked: true)
        #expect(chunked.manifest.archiveSHA256 == nil)
        #expect(!String(decoding: try Data(contentsOf: chunked.manifestURL), as: UTF8.self).contains("archiveSHA256"))
        #expect(try PackageManifest.decode(Data(contentsOf: chunked.manifestURL)) == chunked.manifest)
        #expect(try PackageInspector().inspect(archive: chunked.archiveURL).problems.isEmpty)
        let single = try Self.pack(directory, "s", chunked: false)
        #expect(single.manifest.archiveSHA256 == (try FileDigest.of(single.archiveURL)).sha256)
        #expect(try PackageInspector().inspect(archive: single.archiveURL).problems.isEmpty)
    }

    @Test("a schema-1 manifest still needs its archiveSHA256, and a wrong one is still reported")
    func schemaOneKeepsIt() throws {
        let directory = try TemporaryDirectory("sha")
        let single = try Self.pack(directory, "s", chunked: false)
        var manifest = single.manifest
        manifest.archiveSHA256 = nil
        #expect(throws: DecodingError.self) { try PackageManifest.decode(manifest.encoded()) }
        manifest.archiveSHA256 = String(repeating: "0", count: 64)
        try manifest.encoded().write(to: single.manifestURL)
        let problems = try PackageInspector().inspect(archive: single.archiveURL).problems
        #expect(problems.contains { $0.message.hasPrefix("archiveSHA256 is 0000") }, "\(problems)")
    }
}
