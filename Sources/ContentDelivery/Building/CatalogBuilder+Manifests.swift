import ContentPackaging
import Crypto
internal import Foundation
import SystemSupport

extension CatalogBuilder {
    /// Publishes a chunk-indexed (schema 2) manifest in the compact format as `manifests/<sha256>.manifest`,
    /// after checking its chunk index is sound, and returns the catalog's reference to it; `nil` for a
    /// schema-1 manifest, which clients do not fetch. A JSON manifest is published in the compact format:
    /// clients fetch that one whatever `pack` wrote.
    func publishManifest(_ input: Input, into manifests: URL) throws(CatalogBuildError) -> ManifestReference? {
        guard input.manifest.chunks != nil else { return nil }
        let problems = input.manifest.chunkIndexProblems()
        guard problems.isEmpty else {
            throw .unreadableManifest(path: input.manifestURL.path, detail: problems.joined(separator: "; "))
        }
        let data: Data
        if PackageManifest.isCompact(input.manifestData) {
            data = input.manifestData
        } else {
            do { data = try input.manifest.compactEncoded() } catch {
                throw .unreadableManifest(path: input.manifestURL.path, detail: error.description)
            }
        }
        guard data.count <= PackageManifest.largestCompactManifest else {
            throw .manifestTooLarge(path: input.manifestURL.path, bytes: data.count, limit: PackageManifest.largestCompactManifest)
        }
        try createDirectory(manifests)
        let sha256 = SHA256.hash(data: data).lowercaseHex
        let name = "\(sha256).manifest"
        let destination = manifests.appendingPathComponent(name, isDirectory: false)
        if (try? FileDigest.of(destination))?.sha256 != sha256 {  // content-addressed: present means published
            do { try DurableFile.write(data, to: destination) } catch { throw .fileSystem(error) }
        }
        return ManifestReference(path: "manifests/\(name)", length: Int64(data.count), sha256: sha256)
    }
}
