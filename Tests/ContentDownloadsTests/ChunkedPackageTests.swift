@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `ChunkedPackage` ties a manifest to the archive the signed catalog names: the length always, the
/// archive SHA-256 only when the manifest has one (schema-2 packs leave it out).
@Suite("chunked package")
struct ChunkedPackageTests {
    @Test("a manifest without an archive SHA-256 is accepted by length; a wrong length or a wrong SHA-256 is refused")
    func theArchiveHashIsComparedOnlyWhenPresent() throws {
        let directory = try TemporaryDirectory("chunked-package")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), productID: "com.example.cp")
        let result = try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("out"))
        let digest = try FileDigest.of(result.archiveURL)
        #expect(result.manifest.archiveSHA256 == nil)
        func package(_ manifest: PackageManifest, length: Int64 = digest.length) throws(InstallError) -> ChunkedPackage {
            try ChunkedPackage(manifest: manifest, expectedLength: length, expectedSHA256: digest.sha256, display: "t")
        }
        _ = try package(result.manifest)
        #expect(throws: InstallError.self) { try package(result.manifest, length: digest.length + 1) }
        var withHash = result.manifest
        withHash.archiveSHA256 = digest.sha256.uppercased()
        _ = try package(withHash)
        withHash.archiveSHA256 = String(repeating: "0", count: 64)
        #expect(throws: InstallError.self) { try package(withHash) }
    }
}
