internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

/// What planning a download gave.
enum PlanOutcome: Sendable {
    /// A chunk plan, kept beside its tree: the download fetches its chunks. `handover` is the plan with its checked
    /// manifest when it was just made (`nil` for a plan found kept: the fetch reads both back).
    case planned(ChunkPlan, handover: PlannedFetch?)
    /// No manifest in the store (one-frame archive, or unreachable), or a whole-archive attempt of this version
    /// under way: the archive is downloaded whole; its space was checked.
    case wholeArchive
    /// The manifest was read and refused, the tree cannot be built or the space is short: the download fails with
    /// this error; the manifest and the tree are deleted, the installed version is untouched.
    case refused(DownloadError)
}

extension ContentQueue {
    /// The plan stage with this queue's store and space rule.
    var planner: Planner { Planner(store: store, space: installOptions.spacePreflight) }

    /// Plans the download of `product`, the one path from a purchase, an update or a repair to the fetch: the
    /// signed manifest is fetched and kept (``ManifestFetch``), the kind decided (``Planner/kind(manifestKept:keptPlan:journaled:)``),
    /// and then either the chunk plan is decided and its tree built, or the whole archive's space checked — all
    /// before any archive byte is requested. A repair (the same version) names the installed files it found
    /// `damaged`: they are never linked or read.
    /// `selection` is the packs and variants to install (`nil`: the installed folder's, else the device profile's
    /// defaults); a kept plan of another selection is not followed.
    func plan(_ product: CatalogProduct, distrusting damaged: Set<String> = [], selection: PackSelection? = nil) async -> PlanOutcome {
        // The planning guard (`Store.beginPlanning`): a manifest that killed the process while planning is refused
        // after a few starts instead of killing every start.
        let tree = store.updateTreeDirectory(productID: product.productID, version: product.contentVersion.description).path
        if let refusal = Store.beginPlanning(treePath: tree) {
            return .refused(DownloadError(code: .stoppedPlanning, message: "cannot install \(product.productID) \(product.contentVersion): \(refusal)"))
        }
        CrashHook.reach(.plan)
        let outcome = await planGuarded(product, distrusting: damaged, selection: selection)
        Store.endPlanning(treePath: tree)
        return outcome
    }

    /// ``plan(_:distrusting:selection:)``'s work, inside the planning guard.
    private func planGuarded(_ product: CatalogProduct, distrusting damaged: Set<String>, selection: PackSelection?) async -> PlanOutcome {
        // An update or repair keeps what the installed folder holds; when that cannot be known, a default would
        // switch the language or drop a pack, so nothing is planned (an explicit selection is the way out).
        if selection == nil, case .unreadable(let reason) = store.installedSelectionState(productID: product.productID) {
            return .refused(DownloadError(code: .selectionUnreadable, message: reason))
        }
        let selection = selection ?? self.selection(for: product.productID)
        let id = product.productID, version = product.contentVersion.description
        // A precomputed patch from the installed version, when the catalog offers one and no plan is kept: it
        // makes the new manifest (kept as the fetch below would) and the changed files, so neither is fetched.
        let transport = await manager.options.transfer
        if !store.hasChunkPlan(productID: id, version: version) {
            _ = await PatchFetch(store: store, catalog: catalog, transport: transport).apply(product)
        }
        let manifestKept: Bool
        do {
            manifestKept = try await ManifestFetch(store: store, catalog: catalog, transport: transport).keep(product)
        } catch {
            return .refused(error)  // a manifest past a limit: no fallback to the whole archive
        }
        let keptPlan = self.keptPlan(of: product).flatMap { $0.selection == nil || $0.selection == selection ? $0 : nil }
        let attempt = await manager.stoppedAttempt(of: id, version: version)
        switch Planner.kind(manifestKept: manifestKept, keptPlan: keptPlan != nil, journaled: attempt?.kind) {
        case .chunks:
            if let keptPlan { return .planned(keptPlan, handover: nil) }
            return await planChunks(product, distrusting: damaged, selection: selection)
        case .wholeArchive:
            if manifestKept { store.discardManifest(productID: id, version: version) }  // the attempt under way finishes as it is
            do { try planner.checkWholeArchiveSpace(product, kept: attempt?.kind == .wholeArchive ? attempt?.bytes ?? 0 : 0) } catch {
                return .refused(DownloadError.preflight(error, store: store.root.path) ?? DownloadError.install(error, store: store.root.path))
            }
            return .wholeArchive
        }
    }

    /// The plan kept beside the tree of `product`'s version when the tree is there and the plan is for this archive,
    /// with its manifest made durable (kept again after a crash tore it, it has not been yet).
    private func keptPlan(of product: CatalogProduct) -> ChunkPlan? {
        let version = product.contentVersion.description
        let tree = store.updateTreeDirectory(productID: product.productID, version: version).path
        return ChunkPlan.load(treePath: tree).flatMap { plan in
            plan.contentVersion == version && plan.archiveLength == product.length && FileManager.default.fileExists(atPath: tree)
                && (try? store.syncManifest(productID: product.productID, version: version)) != nil
                ? plan : nil
        }
    }

    /// Decides the chunk plan and builds its tree, one at a time per product: a caller that waited for another's
    /// planning of the same version takes the plan it kept (the tree may already be filling) instead of building
    /// the tree again. A planning ends once its plan is durable, which may be after its caller has it.
    private func planChunks(_ product: CatalogProduct, distrusting damaged: Set<String>, selection: PackSelection) async -> PlanOutcome {
        if let running = updatePreparations[product.productID] { await Self.kept(running.value) }
        let task = Task { await self.buildPlan(product, distrusting: damaged, selection: selection) }
        updatePreparations[product.productID] = task
        let outcome = await task.value
        Task {
            await Self.kept(outcome)
            self.endPreparation(product.productID, task)
        }
        return outcome
    }

    /// Returns once the plan of `outcome`, if it was handed over before it was durable, is durable (or failed to be).
    private static func kept(_ outcome: PlanOutcome) async {
        if case .planned(_, let handover?) = outcome, let keeping = handover.keeping { _ = await keeping.settled() }
    }

    /// Forgets `task` as the planning of `productID` unless another took its place.
    private func endPreparation(_ productID: String, _ task: Task<PlanOutcome, Never>) {
        if updatePreparations[productID] == task { updatePreparations[productID] = nil }
    }

    /// ``planChunks(_:distrusting:selection:)`` itself: the decision (plan stage), then the tree (place stage), on `iap-update`.
    private func buildPlan(_ product: CatalogProduct, distrusting damaged: Set<String>, selection: PackSelection) async -> PlanOutcome {
        if let kept = keptPlan(of: product), kept.selection == nil || kept.selection == selection { return .planned(kept, handover: nil) }
        let id = product.productID, version = product.contentVersion.description
        let metadata: Logger.Metadata = ["product": "\(id)", "version": "\(version)"]
        await manager.forgetProgress(id, version: version)  // a stopped attempt's bytes belonged to the tree about to be built anew
        var fetching = self.planner
        fetching.dictionaries = DictionaryFetch(store: store, catalog: catalog, transport: await manager.options.transfer)
        let planner = fetching
        // The plan goes to the fetch once the tree's files exist; the same thread then makes them durable.
        let result = await BlockingCall.run(thread: "iap-update", {
            PlanHandover.make(planner, product, distrusting: damaged, selection: selection, metadata: metadata)
        }, then: { handover in handover?.finish() })
        // The plan's working set (the installed version's index, the draft) is gone: its pages go back before the
        // transfer builds its own. The checked manifest goes on to the fetch in memory.
        ProcessMemory.returnFreePages()
        switch result {
        case .success(let handover):
            let plan = handover.plan
            DownloadLog.transfer.debug(
                plan.linkedFiles + plan.rebuiltChunks > 0 ? "update: fetching only what changed" : "install: fetching every chunk",
                metadata: metadata.merging([
                    "linked": "\(plan.linkedFiles) files", "rebuilt": "\(plan.rebuiltChunks) chunks (\(plan.rebuiltBytes) bytes)",
                    "fetch": "\(plan.fetch.count) chunks (\(plan.fetchBytes) of \(product.length) bytes)",
                ]) { $1 })
            return .planned(plan, handover: handover)
        case .failure(let error):
            store.discardUpdate(productID: id, version: version)
            store.discardManifest(productID: id, version: version)  // refused: fetched again (and checked again) next time
            DownloadLog.transfer.debug("the download is refused before any archive byte is fetched", metadata: metadata.merging(["reason": "\(error)"]) { $1 })
            return .refused(
                DownloadError.preflight(error, store: store.root.path)
                    ?? DownloadError(code: .init(error), message: "cannot install \(id) \(version): \(error)"))
        }
    }
}
