internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Re-hashes the installed content of `productID` against the manifest it was installed from, off the
    /// cooperative pool (``Store/verifyContent(productID:)``): damaged, missing and extra files by path.
    public nonisolated func verifyContent(productID: String) async throws -> ContentVerification {
        let store = self.store
        return try await BlockingCall.run(thread: "iap-check") { () throws(DownloadError) in
            try store.verifyContent(productID: productID)
        }
    }

    /// Re-hashes the installed content of `productID` against its manifest and, when files are damaged or
    /// missing, fetches only their chunks from the catalog's archive of the same version and swaps the repaired
    /// folder in atomically (extra files are gone with it). Intact files are linked, never copied or fetched.
    ///
    /// Returns what the check found before repairing (``ContentVerification/isIntact`` when there was nothing
    /// to do). The download shows in ``updates`` and the store's status like any other; if it fails, the
    /// installed folder is as it was.
    ///
    /// - Throws: ``DownloadError`` when the product is not installed from a chunk-indexed archive, when the
    ///   catalog no longer offers the installed version, or when the repair's download fails.
    public func repair(productID: String) async throws -> ContentVerification {
        guard isOpen else { throw QueueError.closed(productID: productID) }
        let verification = try await verifyContent(productID: productID)
        guard !verification.isIntact else { return verification }
        let product = try repairableProduct(productID, version: verification.contentVersion)
        let damaged = Set(verification.damaged + verification.missing)
        let (plan, handover) = try await planSameVersion(
            product, distrusting: damaged,
            unplannable: "or cannot build the repaired folder from the intact files (see the log); try again later, or download it again with `iapcontent delete` then `iapcontent download`")
        DownloadLog.queue.debug("repair", metadata: [
            "product": "\(productID)", "damaged": "\(verification.damaged.count)", "missing": "\(verification.missing.count)",
            "extra": "\(verification.extra.count)", "fetch": "\(plan.fetchBytes) bytes",
        ])
        try await fetchSameVersion(product, plan: plan, handover: handover)
        return verification
    }

    /// The chunk plan of a new folder of the installed version (a repair, or a selection change with `selection`).
    /// - Throws: the planner's refusal, or ``DownloadError`` (`.catalog`) ending in `unplannable` when no manifest
    ///   can be had (a same-version folder cannot come from the whole archive).
    func planSameVersion(
        _ product: CatalogProduct, distrusting damaged: Set<String> = [], selection: PackSelection? = nil, unplannable: String
    ) async throws -> (ChunkPlan, PlannedFetch?) {
        switch await plan(product, distrusting: damaged, selection: selection) {
        case .planned(let plan, let handover): return (plan, handover)
        case .refused(let error): throw error
        case .wholeArchive:
            throw DownloadError(
                code: .catalog,
                message: "cannot fetch the manifest of \(product.productID) \(product.contentVersion) from the catalog's mirrors, \(unplannable)")
        }
    }

    /// Fetches the chunks of `plan`, a new folder of the installed version (a repair or a selection change), and
    /// returns once it is swapped in.
    /// - Throws: ``DownloadError`` when the download fails or is cancelled (the installed folder is as it was).
    func fetchSameVersion(_ product: CatalogProduct, plan: ChunkPlan, handover: PlannedFetch?) async throws {
        var fetched = product
        fetched.length = plan.fetchBytes
        let changes = manager.updates  // listen first: the download may end before the loop starts
        let candidates = catalog.map { $0.archiveURLCandidates(for: product) } ?? []
        if candidates.isEmpty, let refusal = catalog?.archiveURLRefusal(for: product) { throw refusal }
        _ = try await manager.enqueue(fetched, candidates: candidates, catalogURL: catalog?.location.absoluteString, plan: .chunks, planned: handover)
        let version = product.contentVersion.description
        for await snapshot in changes where snapshot.productID == product.productID && snapshot.contentVersion == version {
            switch snapshot.state {
            case .finished: return
            case .failed, .cancelled:
                throw snapshot.error ?? DownloadError(code: .cancelled, message: "the download of \(product.productID) \(version) was cancelled")
            default: continue
            }
        }
        throw DownloadError(code: .closed, message: "the queue closed before the download of \(product.productID) ended; open it again to finish")
    }

    /// The catalog's entry for the installed version, which a repair or a selection change fetches from.
    func repairableProduct(_ productID: String, version: ContentVersion) throws -> CatalogProduct {
        guard let product = catalog?.catalog.product(productID) else {
            throw DownloadError(code: .catalog, message: "the catalog does not list \(productID); repair needs the catalog the product was installed from")
        }
        guard product.contentVersion == version, product.manifest != nil else {
            throw DownloadError(
                code: .catalog,
                message: "the catalog offers \(productID) \(product.contentVersion)\(product.manifest == nil ? " without a chunk index" : ""), not the installed \(version); update instead (`iapcontent restore`), which also replaces the damaged files")
        }
        return product
    }
}
