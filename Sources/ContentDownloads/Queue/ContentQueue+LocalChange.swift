internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Makes the change of installed `productID` (`version`) to `selection` from the installed files alone when it
    /// needs no byte from the network — a pack removed, or variants all of whose files are installed: the new folder
    /// is built of links to the installed files (and chunks rebuilt from them, each checked against its signed
    /// hash), made durable with its selection record, and swapped in. No catalog, no manifest fetch, no download
    /// record: a crash before the swap leaves the old folder installed and a tree the next change wipes; after it,
    /// the new one with its record. Returns false, having changed nothing, when the change must fetch (or a
    /// download of this product is under way, whose tree this would share): the caller plans it the usual way.
    /// - Throws: ``DownloadError`` when the tree cannot be built or swapped in; the installed folder is as it was.
    func changeLocally(productID: String, version: ContentVersion, to selection: PackSelection) async throws -> Bool {
        guard updatePreparations[productID] == nil else { return false }
        if let pending = await manager.snapshot(of: productID), [.waiting, .active, .paused].contains(pending.state) { return false }
        let store = self.store, planner = self.planner, options = installOptions
        let treePath = store.updateTreeDirectory(productID: productID, version: version.description).path
        if let refusal = Store.beginPlanning(treePath: treePath) {
            throw DownloadError(code: .stoppedPlanning, message: "cannot change the packs of \(productID) \(version): \(refusal)")
        }
        defer { Store.endPlanning(treePath: treePath) }
        let metadata: Logger.Metadata = ["product": "\(productID)", "version": "\(version)"]
        do {
            return try await BlockingCall.run(thread: "iap-update") { () throws(InstallError) -> Bool in
                guard let decision = try planner.decideLocal(productID: productID, selection: selection, metadata: metadata),
                      try TreeBuilder(decision: decision).buildLocal()
                else { return false }
                let manifest = decision.package.manifest
                let product = CatalogProduct(
                    productID: productID, contentVersion: version, path: "", length: manifest.archiveSize,
                    sha256: manifest.archiveSHA256 ?? "", uncompressedSize: manifest.uncompressedSize, entryCount: manifest.entryCount)
                _ = try ContentInstaller.commit(
                    try StagingFolder(adopting: treePath), product: product, store: store, archivePath: nil, options: options)
                store.discardUpdate(productID: productID, version: version.description)
                store.pruneSelections(productID: productID)
                DownloadLog.queue.debug("selection changed from the installed files; nothing fetched", metadata: metadata.merging([
                    "linked": "\(decision.draft.links.count) files", "rebuilt": "\(decision.draft.local.count) chunks",
                ]) { $1 })
                return true
            }
        } catch {
            store.discardUpdate(productID: productID, version: version.description)
            throw DownloadError.install(error, store: store.root.path)
        }
    }
}
