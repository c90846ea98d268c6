import Crypto
import SystemSupport
import Foundation
import ContentPackaging

extension CatalogBuilder {
    /// Publishes the patches beside the archives that update to `input`'s version
    /// (`<product>-<old>-to-<version>.patch`, as `iapcontent patch` names them) as `patches/<sha256>.patch`, and
    /// returns their references, by ascending old version (`nil` when there is none). A patch must make the very
    /// manifest the catalog publishes (`manifest`), or the build fails naming it: a client would refuse it anyway.
    func publishPatches(to input: Input, manifest: ManifestReference?, into patches: URL) throws(CatalogBuildError) -> [PatchReference]? {
        guard let manifest else { return nil }
        let productID = input.manifest.productID, version = input.manifest.contentVersion
        let prefix = "\(productID)-", suffix = "-to-\(version).patch"
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: inputDirectory.path) } catch {
            throw .fileSystem(FileSystemError(operation: "list", path: inputDirectory.path, foundationError: error))
        }
        var references: [PatchReference] = []
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count {
            let url = inputDirectory.appendingPathComponent(name, isDirectory: false)
            guard let from = ContentVersion(String(name.dropFirst(prefix.count).dropLast(suffix.count))) else { continue }
            let data: Data
            let patch: ContentPatch
            do {
                data = try Data(contentsOf: url)
                patch = try ContentPatch.read(data)
            } catch {
                throw .unusablePatch(path: url.path, detail: "\(error)")
            }
            guard patch.toManifestSHA256 == manifest.sha256 else {
                throw .unusablePatch(path: url.path, detail: "it makes the manifest with SHA-256 \(patch.toManifestSHA256), the catalog publishes \(manifest.sha256) for \(productID) \(version)")
            }
            try createDirectory(patches)
            let sha256 = SHA256.hash(data: data).lowercaseHex
            let destination = patches.appendingPathComponent("\(sha256).patch", isDirectory: false)
            if (try? FileDigest.of(destination))?.sha256 != sha256 {  // content-addressed: present means published
                do { try DurableFile.write(data, to: destination) } catch { throw .fileSystem(error) }
            }
            references.append(PatchReference(
                fromVersion: from, fromManifestSHA256: patch.fromManifestSHA256, path: "patches/\(sha256).patch",
                length: Int64(data.count), sha256: sha256))
        }
        references.sort { $0.fromVersion < $1.fromVersion }
        return references.isEmpty ? nil : references
    }
}
