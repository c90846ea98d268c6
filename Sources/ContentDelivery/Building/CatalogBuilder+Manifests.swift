import ContentPackaging
import Crypto
internal import Foundation
import SystemSupport

extension CatalogBuilder {
    /// Publishes a chunk-indexed (schema 2) manifest as `manifests/<sha256>.manifest.json`, after checking
    /// its chunk index is sound, and returns the catalog's reference to it; `nil` for a schema-1 manifest,
    /// which clients do not fetch.
    func publishManifest(_ input: Input, into manifests: URL) throws(CatalogBuildError) -> ManifestReference? {
        guard input.manifest.chunks != nil else { return nil }
        let problems = input.manifest.chunkIndexProblems()
        guard problems.isEmpty else {
            throw .unreadableManifest(path: input.manifestURL.path, detail: problems.joined(separator: "; "))
        }
        try createDirectory(manifests)
        let sha256 = SHA256.hash(data: input.manifestData).lowercaseHex
        let name = "\(sha256).manifest.json"
        let destination = manifests.appendingPathComponent(name, isDirectory: false)
        if (try? FileDigest.of(destination))?.sha256 != sha256 {  // content-addressed: present means published
            do { try DurableFile.write(input.manifestData, to: destination) } catch { throw .fileSystem(error) }
        }
        return ManifestReference(path: "manifests/\(name)", length: Int64(input.manifestData.count), sha256: sha256)
    }
}
