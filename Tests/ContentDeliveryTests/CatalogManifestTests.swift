import ContentDelivery
import ContentPackaging
import Crypto
import Foundation
import SystemSupport
import Testing
import TestSupport

/// A chunk-indexed package's manifest is published content-addressed and bound to the signed catalog by
/// its SHA-256 (so the catalog vouches for every chunk's hash); a manifest with an unsound index is refused.
@Suite struct CatalogManifestTests {
    /// Packs a two-chunk-or-more package into `directory/in`.
    private func packInput(in directory: TemporaryDirectory) throws -> PackResult {
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.maps",
            files: ["Contents/map.bin": PackageFixture.bytes(count: 6 << 20, seed: 3)])
        return try Packer(chunked: true).pack(folder: folder, outputDirectory: directory.appending("in"))
    }

    @Test func theCatalogReferencesThePublishedManifestBySHA256() throws {
        let directory = try TemporaryDirectory("catalog-manifest")
        let packed = try packInput(in: directory)
        let output = directory.appending("site")
        let result = try CatalogBuilder(inputDirectory: directory.appending("in"), outputDirectory: output).build()
        let reference = try #require(result.catalog.products.first?.manifest)
        let published = try Data(contentsOf: output.appendingPathComponent(reference.path))
        #expect(published == (try Data(contentsOf: packed.manifestURL)))
        #expect(reference.sha256 == SHA256.hash(data: published).lowercaseHex)
        #expect(reference.path == "manifests/\(reference.sha256).manifest")
        #expect(reference.length == Int64(published.count))
        #expect(try PackageManifest.decode(published).chunks == packed.manifest.chunks)
    }

    @Test func aJSONManifestIsPublishedInTheCompactFormat() throws {
        let directory = try TemporaryDirectory("catalog-manifest")
        let packed = try packInput(in: directory)
        let json = packed.manifestURL.deletingPathExtension().appendingPathExtension("manifest.json")
        try packed.manifest.encoded().write(to: json)
        try FileManager.default.removeItem(at: packed.manifestURL)
        let output = directory.appending("site")
        let result = try CatalogBuilder(inputDirectory: directory.appending("in"), outputDirectory: output).build()
        let reference = try #require(result.catalog.products.first?.manifest)
        let published = try Data(contentsOf: output.appendingPathComponent(reference.path))
        #expect(PackageManifest.isCompact(published) && reference.path.hasSuffix(".manifest"))
        #expect(published == (try packed.manifest.compactEncoded()))
        #expect(try PackageManifest.decode(published) == packed.manifest)
    }

    @Test func aManifestWhoseChunkIndexLiesIsNotPublished() throws {
        let directory = try TemporaryDirectory("catalog-manifest")
        let packed = try packInput(in: directory)
        var manifest = packed.manifest
        manifest.chunks![0].length += 1
        try manifest.encoded().write(to: packed.manifestURL)
        let output = directory.appending("site")
        let error = #expect(throws: CatalogBuildError.self) {
            try CatalogBuilder(inputDirectory: directory.appending("in"), outputDirectory: output).build()
        }
        #expect(String(describing: error).contains("chunk 1 starts at archive byte"), "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("catalog.json").path))
    }
}
