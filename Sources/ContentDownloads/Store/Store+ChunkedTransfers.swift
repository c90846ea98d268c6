internal import SystemSupport
internal import ContentPackaging
package import Foundation
import Glibc

/// The files of a download in `transfers/`: the partial archive of a whole-archive download, or, for a
/// chunk-indexed one, the verified manifest it follows and the tree it writes in place.
extension Store {
    /// Where clients before chunk plans wrote a chunk-indexed download in place: only deleted now.
    package func treeDirectory(productID: String) -> URL {
        transfersDirectory.appendingPathComponent("\(Self.safeName(productID)).tree", isDirectory: true)
    }

    /// The manifest of a product version, kept once its SHA-256 matched the signed catalog's.
    package func manifestFile(productID: String, version: String) -> URL {
        transfersDirectory.appendingPathComponent(
            "\(Self.safeName(productID))-\(Self.safeName(version)).manifest.json", isDirectory: false)
    }

    /// The tree an update to `version` builds from the installed version (`transfers/<product>-<version>.update`):
    /// one per version, so that stopping a download of another version never touches it.
    package func updateTreeDirectory(productID: String, version: String) -> URL {
        transfersDirectory.appendingPathComponent("\(Self.safeName(productID))-\(Self.safeName(version)).update", isDirectory: true)
    }

    /// The new files a precomputed patch made for an update to `version`
    /// (`transfers/<product>-<version>.patched/<file index>`), each checked against the new manifest when made and
    /// again before the tree takes it (``TreeBuilder``); spent once the tree is built.
    package func patchedDirectory(productID: String, version: String) -> URL {
        transfersDirectory.appendingPathComponent("\(Self.safeName(productID))-\(Self.safeName(version)).patched", isDirectory: true)
    }

    /// The file a patch made for the new manifest's file `index` (see ``patchedDirectory(productID:version:)``).
    package func patchedFile(productID: String, version: String, file index: Int) -> URL {
        patchedDirectory(productID: productID, version: version).appendingPathComponent(String(index), isDirectory: false)
    }

    /// Deletes the files a patch made for an update to `version` (best effort).
    package func discardPatched(productID: String, version: String) {
        try? FileSystemCalls.removeTree(patchedDirectory(productID: productID, version: version).path)
    }

    /// Whether the plan of a chunk-plan download of `version` is in the store (it is written durably before the
    /// download is journaled; a crash while planning leaves the tree or manifest without it).
    package func hasChunkPlan(productID: String, version: String) -> Bool {
        FileManager.default.fileExists(atPath: Store.planFile(treePath: updateTreeDirectory(productID: productID, version: version).path))
    }

    /// The plan kept beside the tree at `treePath` (`ChunkPlan`). The `.delta` suffix is the name earlier clients
    /// wrote, kept so a download in flight across an upgrade resumes instead of planning again.
    static func planFile(treePath: String) -> String { treePath + ".delta" }

    /// The log of the chunks placed in the tree at `treePath` (`PlacedChunks`).
    static func placedChunksFile(treePath: String) -> String { treePath + ".placed" }

    /// Deletes the plan of the tree at `treePath`, then the log of the chunks placed by it (best effort): the log
    /// means nothing without its plan, and a plan made anew starts with nothing placed.
    static func discardPlan(treePath: String) {
        unlink(planFile(treePath: treePath))
        unlink(placedChunksFile(treePath: treePath))
    }

    /// Where a chunk plan for `productID` at `version` installs: its manifest and its tree.
    package func chunkedTarget(productID: String, version: String) -> ChunkedInstallTarget {
        ChunkedInstallTarget(
            manifestPath: manifestFile(productID: productID, version: version).path,
            treePath: updateTreeDirectory(productID: productID, version: version).path)
    }

    /// The plan kind of a download journaled before the kind was: a chunk plan when it kept a manifest, a tree
    /// or a plan for its version (the only ways those files come to be), else the whole archive.
    func legacyPlanKind(productID: String, version: String) -> DownloadPlanKind {
        let tree = updateTreeDirectory(productID: productID, version: version).path
        let kept = [tree, Store.planFile(treePath: tree), manifestFile(productID: productID, version: version).path]
        return kept.contains { FileManager.default.fileExists(atPath: $0) } ? .chunks : .wholeArchive
    }

    /// Deletes what a whole-archive download wrote so far, its partial archive, and a tree (and its note) that
    /// clients before chunk plans wrote in place (best effort).
    package func discardPartial(productID: String, partialPath: String) {
        unlink(partialPath)
        try? FileSystemCalls.removeTree(treeDirectory(productID: productID).path)
        unlink(treeDirectory(productID: productID).path + ".written")
    }

    /// Deletes a download's files, its manifest included (cancelled, or installed).
    package func discardTransfer(productID: String, version: String, partialPath: String) {
        discardPartial(productID: productID, partialPath: partialPath)
        discardUpdate(productID: productID, version: version)
        discardManifest(productID: productID, version: version)
    }

    /// Deletes the manifest kept for a download of `version` (refused, or not used: the archive comes whole).
    package func discardManifest(productID: String, version: String) {
        unlink(manifestFile(productID: productID, version: version).path)
        unlink(dictionaryFile(productID: productID, version: version).path)
    }

    /// The dictionary of a download's archive, when its manifest names one (``DictionaryFetch``):
    /// `transfers/<product>-<version>.dictionary`, the archive's first bytes as fetched. Checked against the manifest
    /// each time it is read, so a copy a crash tore is fetched again; deleted with the manifest and once installed.
    package func dictionaryFile(productID: String, version: String) -> URL {
        URL(fileURLWithPath: ChunkedInstallTarget.dictionaryPath(forManifest: manifestFile(productID: productID, version: version).path), isDirectory: false)
    }

    /// Deletes an update's plan, then its tree, then what a patch made for it (best effort): without the plan the
    /// tree is never used.
    package func discardUpdate(productID: String, version: String) {
        let tree = updateTreeDirectory(productID: productID, version: version).path
        Store.discardPlan(treePath: tree)
        try? FileSystemCalls.removeTree(tree)
        discardPatched(productID: productID, version: version)
    }
}
