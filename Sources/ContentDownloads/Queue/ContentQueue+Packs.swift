internal import SystemSupport
public import ContentPackaging
internal import ContentDelivery
internal import Foundation
internal import Logging

extension ContentQueue {
    /// The selection a download of `productID` installs when none is asked for: the installed folder's (an update
    /// keeps its packs and variants), else the essential packs with this queue's device profile. The daemon starts
    /// a change from it.
    package func selection(for productID: String) -> PackSelection {
        store.installedSelection(productID: productID) ?? PackSelection(profile: options.deviceProfile)
    }

    /// The selection a change of `productID` starts from: where a change that an earlier process left unfinished is
    /// going (a client asked for it last; `open` resumed it), else ``selection(for:)``. So a pack requested, or a
    /// pack removed, after a switch to `fr` that a crash interrupted keeps `fr` instead of undoing the switch.
    package func changeBase(for productID: String) async -> PackSelection {
        await interruptedChange(of: productID)?.target ?? selection(for: productID)
    }

    /// The unfinished download of `productID`'s installed version (a change or a repair an earlier process left,
    /// which `open` resumed): its state, and the selection its kept plan builds (`nil` before its plan was durable).
    private func interruptedChange(of productID: String) async -> (state: DownloadState, target: PackSelection?)? {
        guard let version = store.installedVersion(forProductID: productID),
              let pending = await manager.snapshot(of: productID), pending.contentVersion == version.description,
              [.waiting, .active, .paused, .failed].contains(pending.state)
        else { return nil }
        let tree = store.updateTreeDirectory(productID: productID, version: version.description).path
        return (pending.state, ChunkPlan.load(treePath: tree).map { $0.selection ?? PackSelection() })
    }

    /// The packs of installed `productID`, the core pack first (``Store/packStatus(productID:defaultProfile:)``).
    /// - Throws: ``DownloadError`` when the product is not installed from a chunk-indexed archive.
    public func packs(productID: String) throws -> [PackStatus] {
        try store.packStatus(productID: productID, defaultProfile: options.deviceProfile)
    }

    /// Refuses a change that removes `removed` packs and keeps every axis (`selects` false) of `productID` before
    /// anything is fetched: an essential pack (`core` among them) stays installed with the product, so asking to
    /// remove one is answered with that rule instead of a success that changed nothing; and a change that keeps the
    /// axes of a folder whose selection cannot be known would pick them anew (``Store/requireKnownSelection(productID:)``).
    /// - Throws: ``DownloadError`` (`.install`) naming the pack or the unreadable record; nothing changed.
    package func checkChange(productID: String, removing removed: [String], selects: Bool) throws {
        if !selects { try store.requireKnownSelection(productID: productID) }
        guard !removed.isEmpty else { return }
        let current = try packs(productID: productID)
        for id in removed {
            guard let pack = current.first(where: { $0.id == id }) else {
                throw DownloadError(code: .unknownPack, message: "\(productID) has no pack '\(id)'; its packs are \(current.map(\.id).joined(separator: ", ")); nothing changed")
            }
            if pack.policy == .essential {
                throw DownloadError(code: .essentialPack, message: "'\(id)' is an essential pack of \(productID): essential packs stay installed with the product and cannot be removed; nothing changed")
            }
        }
    }

    /// Installs the packs `ids` of installed `productID` in one download (a batch: one plan, one fetch, one swap),
    /// keeping every pack and variant installed now. Returns when they are installed.
    /// - Throws: ``DownloadError`` for an unknown pack, a product not installed, or a failed download.
    public func requestPacks(_ ids: Set<String>, productID: String) async throws {
        try store.requireKnownSelection(productID: productID)  // adding to an unknown selection would drop its variants
        var selection = await changeBase(for: productID)
        selection.packs.formUnion(ids)
        try await changeSelection(productID: productID, to: selection)
    }

    /// Changes what installed `productID` holds — other variants (`language=fr`), packs added or removed — by
    /// fetching only the chunks not already on disk, linking every unchanged file, and swapping the new folder in
    /// atomically: a crash leaves the old selection or the new one, never a mix. Returns when it is installed;
    /// the download shows in ``updates`` like a repair's, then ``ContentQueueUpdate/packsChanged(productID:packs:)``.
    /// - Throws: ``DownloadError`` for an unknown pack, a product not installed from a chunk-indexed archive, a
    ///   catalog that no longer offers the installed version, or a failed download (the old selection stays).
    ///
    /// Changes of one product run one after another: a call made while another runs waits for it, then starts from
    /// what it installed (two at once would plan two trees over one set of transfer files).
    public func changeSelection(productID: String, to selection: PackSelection) async throws {
        let before = selectionChanges[productID]
        let change = Task {
            _ = await before?.result  // the earlier change's outcome is its caller's; this one starts after it
            try await self.changeSelectionNow(productID: productID, to: selection)
        }
        let tail = Task { _ = await change.result }
        selectionChanges[productID] = tail
        let outcome = await change.result
        if selectionChanges[productID] == tail { selectionChanges[productID] = nil }
        try outcome.get()
    }

    /// ``changeSelection(productID:to:)``'s work, once no other change of the product runs.
    private func changeSelectionNow(productID: String, to selection: PackSelection) async throws {
        guard isOpen else { throw QueueError.closed(productID: productID) }
        let current = try packs(productID: productID)
        if let unknown = selection.packs.subtracting(current.map(\.id)).sorted().first {
            throw DownloadError(code: .unknownPack, message: "\(productID) has no pack '\(unknown)'; its packs are \(current.map(\.id).joined(separator: ", "))")
        }
        guard let version = store.installedVersion(forProductID: productID) else { return }
        await settleInterruptedChange(productID: productID, version: version, toward: selection)
        if store.installedSelection(productID: productID) == selection { return }
        if try await changeLocally(productID: productID, version: version, to: selection) {
            if let now = try? packs(productID: productID) { await deliver(.packsChanged(productID: productID, packs: now)) }
            return
        }
        guard catalog != nil else {
            throw DownloadError(
                code: .catalog,
                message: "changing the packs of \(productID) this way fetches files that are not on disk, which needs the catalog it was installed from (--catalog); nothing changed")
        }
        let product = try repairableProduct(productID, version: version)
        let (plan, handover) = try await planSameVersion(product, selection: selection, unplannable: "(see the log); try again later")
        DownloadLog.queue.debug("selection change", metadata: [
            "product": "\(productID)", "fetch": "\(plan.fetchBytes) bytes", "linked": "\(plan.linkedFiles) files",
        ])
        try await fetchSameVersion(product, plan: plan, handover: handover)
        if let now = try? packs(productID: productID) { await deliver(.packsChanged(productID: productID, packs: now)) }
    }

    /// Settles a change of `productID`'s installed `version` that an earlier process left unfinished (`open`
    /// resumed it) before another change starts: one toward `selection` is waited for; any other is cancelled and
    /// its files deleted. Without this, a switch killed on its way to `de`, followed by a request for the installed
    /// `fr`, would see nothing to do and the resumed switch would then swap `de` in; a change to a third selection
    /// would build its tree where the resumed one is still writing.
    private func settleInterruptedChange(productID: String, version: ContentVersion, toward selection: PackSelection) async {
        let changes = manager.updates  // listen first: the download may end before the loop starts
        guard let pending = await interruptedChange(of: productID) else { return }
        guard pending.target == selection, pending.state != .failed else {
            DownloadLog.queue.debug("cancelling an interrupted change for another", metadata: [
                "product": "\(productID)", "state": "\(pending.state)",
            ])
            return await manager.cancelAndWait(productID)
        }
        if pending.state == .paused { await manager.resume(productID) }
        for await snapshot in changes where snapshot.productID == productID && snapshot.contentVersion == version.description {
            if [.finished, .failed, .cancelled].contains(snapshot.state) { return }  // a failure: the caller plans anew
        }
    }

    /// Starts installing the prefetch packs of `productID` that are not installed, once its transaction's
    /// download finished (the essential packs are in place and the transaction could finish already).
    func schedulePrefetch(of productID: String) {
        // Only a product installed with packs has a selection record: no other product's manifest is decoded here.
        guard options.prefetchesPacks, prefetches[productID] == nil, store.installedSelection(productID: productID) != nil,
              let missing = try? packs(productID: productID).filter({ $0.policy == .prefetch && !$0.installed }).map(\.id),
              !missing.isEmpty
        else { return }
        DownloadLog.queue.debug("prefetching packs", metadata: ["product": "\(productID)", "packs": "\(missing.joined(separator: ","))"])
        prefetches[productID] = Task { [weak self] in
            do { try await self?.requestPacks(Set(missing), productID: productID) } catch {
                DownloadLog.queue.warning("prefetch packs not installed", metadata: ["product": "\(productID)", "reason": "\(error)"])
            }
            await self?.endPrefetch(productID)
        }
    }

    private func endPrefetch(_ productID: String) { prefetches[productID] = nil }

    /// The products whose prefetch packs are being installed now (the CLI shows their downloads).
    package func prefetchingProducts() -> Set<String> { Set(prefetches.keys) }

    /// Returns once every prefetch started so far has ended (installed or failed; a failure is logged and leaves the
    /// essential packs as they are). The CLI's `download` waits for them before it exits.
    public func waitForPrefetches() async {
        while let task = prefetches.values.first { await task.value }  // each task removes itself as it ends
    }
}
