internal import SystemSupport
public import ContentPackaging
internal import ContentDelivery
internal import Foundation
internal import Logging

/// One pack of an installed product as a client shows it.
public struct PackStatus: Sendable, Equatable, Codable {
    /// The pack's identifier (`core` for the files no declared pack names).
    public var id: String
    /// When it is installed.
    public var policy: DownloadPolicy
    /// Whether the installed folder holds it.
    public var installed: Bool
    /// Its files' bytes under the installed variants (on disk when installed).
    public var bytes: Int64
    /// Archive bytes of the chunks holding its files: at most what installing it fetches (0 when installed).
    public var bytesToFetch: Int64
}

extension ContentQueue {
    /// The selection a download of `productID` installs when none is asked for: the installed folder's (an update
    /// keeps its packs and variants), else the essential packs with this queue's device profile. The daemon starts
    /// a change from it.
    package func selection(for productID: String) -> PackSelection {
        store.installedSelection(productID: productID) ?? PackSelection(profile: options.deviceProfile)
    }

    /// The packs of installed `productID`, the core pack first: policy, whether installed, size and what is left
    /// to fetch. A product without packs is one installed core pack.
    /// - Throws: ``DownloadError`` when the product is not installed from a chunk-indexed archive.
    public func packs(productID: String) throws -> [PackStatus] {
        guard let version = store.installedVersion(forProductID: productID),
              let manifest = try? PackageManifest.decode(contentsOfFile: store.installedManifestFile(productID: productID).path),
              manifest.contentVersion == version
        else {
            throw DownloadError(code: .install, message: "\(productID) is not installed from a chunk-indexed archive in \(store.root.path); download it first")
        }
        let selection = selection(for: productID)
        let content = SelectedContent(manifest: manifest, selection: selection)
        let chunkBytes = Self.chunkBytesByPack(manifest, profile: selection.profile)
        return content.packs.map { pack in
            PackStatus(
                id: pack.id, policy: pack.policy, installed: pack.selected, bytes: pack.bytes,
                bytesToFetch: pack.selected ? 0 : chunkBytes[pack.id] ?? 0)
        }
    }

    /// Installs the packs `ids` of installed `productID` in one download (a batch: one plan, one fetch, one swap),
    /// keeping every pack and variant installed now. Returns when they are installed.
    /// - Throws: ``DownloadError`` for an unknown pack, a product not installed, or a failed download.
    public func requestPacks(_ ids: Set<String>, productID: String) async throws {
        var selection = selection(for: productID)
        selection.packs.formUnion(ids)
        try await changeSelection(productID: productID, to: selection)
    }

    /// Changes what installed `productID` holds — other variants (`language=fr`), packs added or removed — by
    /// fetching only the chunks not already on disk, linking every unchanged file, and swapping the new folder in
    /// atomically: a crash leaves the old selection or the new one, never a mix. Returns when it is installed;
    /// the download shows in ``updates`` like a repair's, then ``ContentQueueUpdate/packsChanged(productID:packs:)``.
    /// - Throws: ``DownloadError`` for an unknown pack, a product not installed from a chunk-indexed archive, a
    ///   catalog that no longer offers the installed version, or a failed download (the old selection stays).
    public func changeSelection(productID: String, to selection: PackSelection) async throws {
        guard isOpen else { throw QueueError.closed(productID: productID) }
        let current = try packs(productID: productID)
        if let unknown = selection.packs.subtracting(current.map(\.id)).sorted().first {
            throw DownloadError(code: .install, message: "\(productID) has no pack '\(unknown)'; its packs are \(current.map(\.id).joined(separator: ", "))")
        }
        guard let version = store.installedVersion(forProductID: productID) else { return }
        if store.installedSelection(productID: productID) == selection { return }
        let product = try repairableProduct(productID, version: version)
        let plan: ChunkPlan, handover: PlannedFetch?
        switch await self.plan(product, selection: selection) {
        case .planned(let made, let planned): (plan, handover) = (made, planned)
        case .refused(let error): throw error
        case .wholeArchive:
            throw DownloadError(code: .catalog, message: "cannot fetch the manifest of \(productID) \(version) from the catalog's mirrors (see the log); try again later")
        }
        DownloadLog.queue.debug("selection change", metadata: [
            "product": "\(productID)", "fetch": "\(plan.fetchBytes) bytes", "linked": "\(plan.linkedFiles) files",
        ])
        try await fetchSameVersion(product, plan: plan, handover: handover)
        if let now = try? packs(productID: productID) { await deliver(.packsChanged(productID: productID, packs: now)) }
    }

    /// Archive bytes of the chunks that hold each pack's files under the variants `profile` picks.
    private static func chunkBytesByPack(_ manifest: PackageManifest, profile: DeviceProfile) -> [String: Int64] {
        guard let chunks = manifest.chunks, let declaration = manifest.packs else { return [:] }
        let everything = SelectedContent(
            manifest: manifest, selection: PackSelection(packs: Set(declaration.packs.map(\.id)), profile: profile))
        var byPack: [String: Set<Int>] = [:]
        for index in everything.files {
            let file = manifest.files[index]
            guard let start = file.dataOffset, file.size > 0 else { continue }
            let pack = declaration.packID(forInstallPath: Substring(everything.installPath(of: index, in: manifest)))
            var low = 0, high = chunks.count  // the first chunk ending after the file's start
            while low < high {
                let middle = (low + high) / 2
                if chunks[middle].uncompressedOffset + chunks[middle].uncompressedLength <= start { low = middle + 1 } else { high = middle }
            }
            var chunk = low
            while chunk < chunks.count, chunks[chunk].uncompressedOffset < start + file.size {
                byPack[pack, default: []].insert(chunk)
                chunk += 1
            }
        }
        return byPack.mapValues { $0.reduce(0) { $0 + chunks[$1].length } }
    }
}
