@testable import ContentPackaging
import Crypto
import Foundation
import TestSupport

/// Two versions of a package, packed, and the patch between them: the world of the patch tests.
struct PatchFixture {
    let root: URL
    let oldFolder: URL, newFolder: URL
    let oldManifest: Data, newManifest: Data
    let patch: Data
    let summary: PatchWriter.Summary

    /// Packs `old` as 1.0 and `new` as 2.0 (paths under `Contents/`) and writes the patch from one to the other.
    init(old: [String: Data], new: [String: Data]) throws {
        root = try TemporaryDirectory.make(prefix: "patch")
        oldFolder = try PackageFixture.make(at: root.appendingPathComponent("old"), productID: "com.example.patch", version: "1.0", files: old)
        newFolder = try PackageFixture.make(at: root.appendingPathComponent("new"), productID: "com.example.patch", version: "2.0", files: new)
        let packed = root.appendingPathComponent("packed", isDirectory: true)
        oldManifest = try Data(contentsOf: try Packer().pack(folder: oldFolder, outputDirectory: packed).manifestURL)
        newManifest = try Data(contentsOf: try Packer().pack(folder: newFolder, outputDirectory: packed).manifestURL)
        (patch, summary) = try PatchWriter.write(oldManifest: oldManifest, oldFolder: oldFolder, newManifest: newManifest, newFolder: newFolder)
    }

    /// The SHA-256 of the new manifest, as a catalog lists it.
    var newManifestSHA256: String { PatchFixture.sha256(newManifest) }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Applies `patch` (this fixture's unless given) to the old version: the new manifest and every carried file, made
    /// from the old folder's files.
    func apply(_ patch: Data? = nil, installedManifest: Data? = nil, expecting sha: String? = nil) throws -> (PatchApplier, [String: Data]) {
        let applier = try PatchApplier(patch ?? self.patch, installedManifest: installedManifest ?? oldManifest, expectedManifestSHA256: sha ?? newManifestSHA256)
        var made: [String: Data] = [:]
        for entry in applier.patch.entries {
            let old = try entry.oldFile.map { try Data(contentsOf: oldFolder.appendingPathComponent(applier.oldManifest.files[$0].path)) }
            made[applier.newManifest.files[entry.newFile].path] = try applier.file(entry, old: old)
        }
        return (applier, made)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
