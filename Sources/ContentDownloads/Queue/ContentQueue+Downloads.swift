internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Enqueues a transaction's content unless it is installed at its version (or newer), once the plan stage
    /// decided what the download is and checked its space (``plan(_:distrusting:)``).
    func startDownload(_ row: TransactionRow) async throws {
        let product = row.product
        localFailures[row.productID] = nil
        // A cancel or pause still stopping the transfer deletes or keeps its files when the stop arrives: plan only
        // after it, so a new plan's tree is never the old attempt's to delete.
        await manager.waitUntilStopped(row.productID)
        if let installed = store.installedVersion(forProductID: row.productID), installed >= product.contentVersion {
            return
        }
        if store.installedVersion(forProductID: row.productID) == nil { firstInstalls.insert(row.productID) }
        var update: ChunkPlan?, handover: PlannedFetch?
        switch await plan(product) {
        case .planned(let plan, let planned): (update, handover) = (plan, planned)
        case .wholeArchive: break
        case .refused(let error):
            localFailures[row.productID] = error
            await deliverDownload(row)
            return
        }
        // Mirrors: every candidate the current catalog gives for this exact archive, else the URL recorded with the purchase.
        // Without the catalog, the recorded URL is fetched only over http(s): the URL rule (``OriginRule``) lets a
        // local catalog name files, and which catalog recorded it is not known here.
        let candidates = catalog.flatMap { source in
            source.catalog.product(row.productID).flatMap { $0.sha256 == product.sha256 ? source.archiveURLCandidates(for: $0) : nil }
        } ?? [row.url].filter { OriginRule.curlProtocols(for: $0) != "file" }
        guard !candidates.isEmpty else {
            localFailures[row.productID] = catalog?.archiveURLRefusal(for: product) ?? DownloadError(
                code: .catalog, message: "no URL to fetch \(row.productID) from: \(row.url) is not http(s) and no catalog is given; pass the catalog it came from")
            await deliverDownload(row)
            return
        }
        overlapped.register(product)
        var fetched = product  // an update's download is the bytes it fetches
        if let update { fetched.length = update.fetchBytes }
        let snapshot = try await manager.enqueue(
            fetched, candidates: candidates, catalogURL: catalog?.location.absoluteString, transactionID: row.id,
            plan: update == nil ? .wholeArchive : .chunks, planned: handover)
        if snapshot.state == .finished, store.contentURL(forProductID: row.productID) == nil {
            // Verified earlier without installing (`download --no-install`): install that archive.
            let archive = store.archiveFile(productID: row.productID, version: product.contentVersion.description)
            do {
                _ = try await VerifiedCommit.runInstall(archive: archive, product: product, store: store, options: installOptions)
                try? ledger.recordPhase(row.productID, .installed)
            } catch {
                localFailures[row.productID] = error as? DownloadError ?? DownloadError(code: .install, message: "\(error)")
            }
            await deliverDownload(row)
        }
    }

    /// Starts the download of each unfinished transaction that has none for its version — a crash after the
    /// transaction was journaled and before its download was enqueued (while the manifest was fetched or an
    /// update's tree was built from the installed version) leaves it so — and plans again an update whose plan
    /// is gone (its download waits for that). Called by ``open()``.
    func startStrandedDownloads() async {
        for row in rows.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let version = row.product.contentVersion.description
            if let installed = store.installedVersion(forProductID: row.productID), installed >= row.product.contentVersion { continue }
            if let snapshot = await manager.snapshot(of: row.productID), snapshot.contentVersion == version,
               await !manager.needsPlanning(row.productID, version: version)
            {
                continue
            }
            DownloadLog.queue.debug("recovery: starting a download a crash left unstarted", metadata: ["transaction": "\(row.id)"])
            do { try await startDownload(row) } catch {
                DownloadLog.queue.debug("cannot start the download", metadata: ["transaction": "\(row.id)", "error": "\(error)"])
            }
        }
    }

    /// The transaction with its downloads as they are now.
    func transaction(_ row: TransactionRow) async -> ContentTransaction {
        ContentTransaction(
            id: row.id, productID: row.productID, kind: row.kind, state: row.state,
            downloads: [await download(row)])
    }

    /// The download of a transaction: the transfer's snapshot when it is for this version,
    /// `finished` when the version (or a newer one) is installed, else the preflight failure or `waiting`.
    func download(_ row: TransactionRow) async -> ContentDownload {
        let product = row.product
        let version = product.contentVersion.description
        var snapshot: DownloadSnapshot
        if let failure = localFailures[row.productID] {
            snapshot = Self.snapshot(product, state: .failed, bytes: 0, error: failure)
        } else if let live = await manager.snapshot(of: row.productID), live.contentVersion == version,
                  live.state != .finished || store.contentURL(forProductID: row.productID) != nil
        {
            snapshot = live
            // The download serves another transaction now: one cancelled before stays cancelled for this one, and a
            // cancelled download of another is not this new one's state.
            if await manager.transactionID(of: row.productID) != row.id {
                if deliveredStates[row.id] == .cancelled {
                    snapshot = Self.snapshot(product, state: .cancelled, bytes: 0, error: nil)
                } else if live.state == .cancelled, deliveredStates[row.id] == nil {
                    snapshot = Self.snapshot(product, state: .waiting, bytes: 0, error: nil)
                }
            }
        } else if let installed = store.installedVersion(forProductID: row.productID), installed >= product.contentVersion {
            snapshot = Self.snapshot(product, state: .finished, bytes: product.length, error: nil)
        } else {
            snapshot = Self.snapshot(product, state: .waiting, bytes: 0, error: nil)
        }
        let url = snapshot.state == .finished ? store.contentURL(forProductID: row.productID) : nil
        if snapshot.state == .finished, url == nil { snapshot.state = .waiting }
        return ContentDownload(transactionID: row.id, snapshot: snapshot, contentURL: url)
    }

    /// The downloads the store holds that no unfinished transaction asked for (a repair, an update, one whose
    /// transaction was finished), each with ``ContentDownload/noTransaction``, oldest first: with
    /// ``transactions()`` they are every download there is, what a client that reconnects is shown.
    package func downloadsOutsideTransactions() async -> [ContentDownload] {
        await manager.snapshots().filter { snapshot in
            !rows.values.contains { $0.productID == snapshot.productID && $0.product.contentVersion.description == snapshot.contentVersion }
        }.map { snapshot in
            let url = snapshot.state == .finished ? store.contentURL(forProductID: snapshot.productID) : nil
            return ContentDownload(transactionID: ContentDownload.noTransaction, snapshot: snapshot, contentURL: url)
        }
    }

    static func snapshot(_ product: CatalogProduct, state: DownloadState, bytes: Int64, error: DownloadError?) -> DownloadSnapshot {
        DownloadSnapshot(
            productID: product.productID, contentIdentifier: product.contentIdentifier,
            contentVersion: product.contentVersion.description, state: state, downloadedBytes: bytes,
            expectedContentLength: product.length,
            progress: product.length > 0 ? min(1, Double(bytes) / Double(product.length)) : (state == .finished ? 1 : 0),
            timeRemaining: downloadTimeRemainingUnknown, error: error)
    }

    /// Maps an engine snapshot to the downloads of the transactions it serves; a download no transaction asked
    /// for (a repair) is delivered once, with ``ContentDownload/noTransaction``.
    func forward(_ snapshot: DownloadSnapshot) async {
        let served = rows.values.filter { row in
            row.productID == snapshot.productID && row.product.contentVersion.description == snapshot.contentVersion
                && hears(snapshot, row)
        }
        guard !served.isEmpty else {
            let url = snapshot.state == .finished ? store.contentURL(forProductID: snapshot.productID) : nil
            return await deliver(.downloads([ContentDownload(transactionID: ContentDownload.noTransaction, snapshot: snapshot, contentURL: url)]))
        }
        if snapshot.state == .finished, firstInstalls.remove(snapshot.productID) != nil { schedulePrefetch(of: snapshot.productID) }
        var downloads: [ContentDownload] = []
        for row in served.sorted(by: { $0.id < $1.id }) {
            let url = snapshot.state == .finished ? store.contentURL(forProductID: row.productID) : nil
            downloads.append(ContentDownload(transactionID: row.id, snapshot: snapshot, contentURL: url))
        }
        await deliver(.downloads(downloads))
    }

    /// Whether a snapshot of the product's download is about `row`'s download: the transaction it served hears
    /// everything; another hears it unless it was cancelled (its download ended for it), and a cancellation only
    /// when it had heard of the download before (a transaction added after a cancel is not cancelled by it).
    ///
    /// A transaction whose download was delivered finished hears no later download of the same version: its
    /// essential packs are in place and it may have finished; the prefetch packs, a selection change or a repair
    /// that follow are the product's, not the purchase's (their bytes never count toward its progress).
    func hears(_ snapshot: DownloadSnapshot, _ row: TransactionRow) -> Bool {
        if deliveredStates[row.id] == .finished, snapshot.servedTransactionID != row.id { return false }
        guard let served = snapshot.servedTransactionID, served != row.id else { return true }
        if deliveredStates[row.id] == .cancelled { return false }
        return snapshot.state != .cancelled || deliveredStates[row.id] != nil
    }

    func deliverDownload(_ row: TransactionRow) async {
        await deliver(.downloads([await download(row)]))
    }

    /// Sends an update to the stream and the observer; a download of a transaction not announced yet is held
    /// back (see ``announced``).
    func deliver(_ update: ContentQueueUpdate) async {
        var update = update
        switch update {
        case .transactions(let transactions):
            announced.formUnion(transactions.map(\.id))
        case .downloads(let downloads):
            let shown = downloads.filter { announced.contains($0.transactionID) || $0.transactionID == ContentDownload.noTransaction }
            guard !shown.isEmpty else { return }
            update = .downloads(shown)
            for download in shown where rows[download.transactionID] != nil {
                deliveredStates[download.transactionID] = download.state
            }
        case .contentRemoved, .entitlementsReconciled, .packsChanged, .updatesAvailable:
            break
        }
        published.yield(update)
        guard let observer else { return }
        switch update {
        case .transactions(let transactions): await observer.updatedTransactions(transactions)
        case .downloads(let downloads): await observer.updatedDownloads(downloads)
        case .contentRemoved(let productIDs): await observer.removedContent(productIDs)
        case .entitlementsReconciled(let outcome): await observer.reconciledEntitlements(outcome)
        case .packsChanged(let productID, let packs): await observer.changedPacks(productID: productID, packs: packs)
        case .updatesAvailable(let updates): await observer.foundUpdates(updates)
        }
    }
}
