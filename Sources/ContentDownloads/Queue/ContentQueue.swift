internal import Logging
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation

/// The transaction queue an embedding service uses: StoreKit's `SKPaymentQueue` for hosted content.
///
/// ``add(_:)`` a purchase the service verified → one download per hosted content of the product
/// (from the catalog) → transfer, verify, install (``ContentInstaller``) → the download is
/// `finished` and its `contentURL` names the installed folder → ``finish(_:)`` moves the
/// transaction to the history (refused while a download is in flight).
///
/// Lifecycle: create, set an `observer` or take ``updates``, then ``open()`` — it recovers
/// what a crash interrupted, resumes the downloads that were active (paused ones stay paused) and
/// re-delivers every unfinished transaction. ``close()`` pauses and checkpoints; ``open()`` may follow it again.
public actor ContentQueue {
    /// Every listener's buffer of ``updates`` (the queue publishes, listeners read at their own pace).
    nonisolated let published = UpdateBroadcaster<ContentQueueUpdate>()
    /// The store this queue drives: installed content, its journal and its locks.
    public nonisolated let store: Store
    let journal: SQLiteJournal
    /// The writer of the download records the queue changes itself (install phases, crash recovery).
    let ledger: Ledger
    /// Replaced by a new one when the queue opens again after ``close()`` (an engine runs once).
    var manager: DownloadManager
    /// What ``manager`` was made with (and the rate cap set since), for that new one.
    var options: DownloadOptions
    /// True after ``close()``, until the next ``open()``.
    var wasClosed = false
    /// The authorizer handed to every manager.
    var authorizer: ArchiveURLAuthorizer?
    let installOptions: ContentInstaller.Options
    /// Extractions that follow running downloads (``ContentInstaller/Options/overlapWithDownload``).
    let overlapped: OverlappedInstalls
    var catalog: CatalogSource?
    var rows: [String: TransactionRow] = [:]
    /// Failures decided here, not by a transfer: the space preflight, installing an archive verified earlier.
    var localFailures: [String: DownloadError] = [:]
    /// Updates whose tree is being built, by product: a second caller waits for the first (one builder per tree).
    var updatePreparations: [String: Task<PlanOutcome, Never>] = [:]
    /// The prefetch packs being installed after a purchase's essential ones, by product.
    var prefetches: [String: Task<Void, Never>] = [:]
    /// Products whose download under way installs them where nothing was installed (a purchase, or a restore on a
    /// device without them): only such an install is followed by its prefetch packs. An update keeps exactly the
    /// installed selection, so a pack the user left out (`--no-prefetch`, or removed) stays out.
    var firstInstalls: Set<String> = []
    /// The last selection change asked for, by product: the next one waits for it (``changeSelection(productID:to:)``).
    var selectionChanges: [String: Task<Void, Never>] = [:]
    var observer: (any ContentQueueObserver)?
    /// The last download state delivered per transaction (so a finish never overtakes it).
    var deliveredStates: [String: DownloadState] = [:]
    /// Transactions whose `transactions` update was delivered: a download update of any other is held back
    /// (the transaction's update, delivered later, carries that download's state), so a listener always
    /// learns of a transaction before its downloads.
    var announced: Set<String> = []
    /// Updates ``refreshCatalog(_:)`` announced (`"<productID> <version>"`): each is announced once.
    var announcedUpdates: Set<String> = []
    var forwardTask: Task<Void, Never>?
    var isOpen = false
    /// What the customer is entitled to, asked at ``open()`` (``setEntitlementSource(_:removingWithdrawnContent:)``).
    var entitlementSource: (any EntitlementSource)?
    /// Whether reconciling removes the content of revoked and expired products.
    var removesWithdrawnContent = true
    /// What the last reconciliation with the entitlements did, or why they were refused (`nil` before the first):
    /// read it after ``open()``, which reconciles with an entitlement source but does not fail when the source does.
    public internal(set) var lastReconciliation: EntitlementReconciliation?

    /// A queue on `store`; `catalog` is needed to add purchases and to restore.
    public init(
        store: Store, catalog: CatalogSource?, options: DownloadOptions = DownloadOptions(),
        installOptions: ContentInstaller.Options = ContentInstaller.Options()
    ) throws {
        self.store = store
        self.catalog = catalog
        self.installOptions = installOptions
        journal = try store.journal()
        ledger = Ledger(journal: journal)
        overlapped = OverlappedInstalls(store: store, options: InstallSettings(installOptions))
        manager = try DownloadManager(store: store, options: options)
        self.options = options
    }

    /// Sets (or clears) the delegate-style observer.
    public func setObserver(_ observer: (any ContentQueueObserver)?) { self.observer = observer }

    /// Installs the hook that authorizes archive URLs (purchaser-only tokens) before each request;
    /// it is asked again once after a 403/410. See ``ArchiveURLAuthorizer``.
    public func setArchiveURLAuthorizer(_ authorizer: ArchiveURLAuthorizer?) async {
        self.authorizer = authorizer
        await manager.setArchiveURLAuthorizer(authorizer)
    }

    /// Replaces the catalog (a refreshed one) used by ``add(_:)``, restore and update detection.
    public func setCatalog(_ catalog: CatalogSource?) { self.catalog = catalog }

    /// Recovers, starts transferring and re-delivers every unfinished transaction (returned too); then,
    /// with an entitlement source, reconciles the store with it (see ``reconcileEntitlements()``: restored
    /// transactions arrive as updates; a failure is logged and changes nothing).
    /// - Throws: ``DriverLockError/busy(store:pid:)`` when another process drives the store;
    ///   ``InstallError`` when recovery cannot clean the store.
    @discardableResult
    public func open() async throws -> [ContentTransaction] {
        guard !isOpen else { return await transactions() }
        if wasClosed {  // the engine of the last opening has ended: a new manager, with the same options
            manager = try DownloadManager(store: store, options: options)
            await manager.setArchiveURLAuthorizer(authorizer)
            rows = [:]
            wasClosed = false
        }
        // Recovery runs under the driver lock (so no other driver installs meanwhile); the manager
        // takes the lock again right after (flock is per open file, so it cannot be shared).
        do {
            let lock = try DriverLock(store: store)
            let recovery = try ContentInstaller.recover(store: store)
            if !recovery.removedStaging.isEmpty || !recovery.removedTrash.isEmpty {
                DownloadLog.queue.debug(
                    "recovery: removed what interrupted installs left",
                    metadata: ["staging": "\(recovery.removedStaging)", "trash": "\(recovery.removedTrash.count) item(s)"])
            }
            for row in try journal.transactionRows() { rows[row.id] = row }
            try await recoverInstalls()
            withExtendedLifetime(lock) {}
        }  // the lock is released here
        // After verification a download goes on to the commit stage, not back to the queue.
        let commit = self.commit
        await manager.setPostVerifyStep { archive in try await commit.install(archive) }
        if installOptions.overlapWithDownload {
            for row in rows.values { overlapped.register(row.product) }
            let overlapped = self.overlapped
            await manager.setTransferFeedProvider { request in overlapped.feed(for: request.attempt) }
        }
        let updates = manager.updates  // before start: its first changes come from start itself
        try await manager.start()
        isOpen = true
        forwardTask = Task { [weak self] in
            for await snapshot in updates { await self?.forward(snapshot) }
        }
        await startStrandedDownloads()
        let unfinished = await transactions()
        if !unfinished.isEmpty { await deliver(.transactions(unfinished)) }
        if entitlementSource != nil { await reconcileEntitlementsAtOpen() }
        return unfinished
    }

    /// Pauses and checkpoints transfers (they resume on the next ``open()``) and ends ``updates``.
    public func close() async {
        await manager.shutdown()
        overlapped.discardAll()
        await forwardTask?.value
        published.finish()  // ends the current listeners…
        published.reopen()  // …while later ones (of a next ``open()``) are accepted
        isOpen = false
        wasClosed = true
        announced = []
    }

    // MARK: Transactions

    /// Adds a verified purchase: attaches the product's hosted content and starts its download
    /// (or reattaches when the transaction id is already unfinished; one whose download was cancelled or failed
    /// starts that download again). Content already installed
    /// at the catalog's version (or newer) is `finished` at once.
    /// - Throws: ``QueueError/unknownProduct(_:catalog:)`` when the catalog lacks the product,
    ///   ``QueueError/emptyTransactionID(productID:)`` for a purchase without a transaction identifier,
    ///   ``QueueError/transactionReused(_:productID:requested:)`` for an unfinished transaction's id with another product.
    @discardableResult
    public func add(_ purchase: VerifiedPurchase) async throws -> ContentTransaction {
        guard purchase.transactionID != ContentDownload.noTransaction else { throw QueueError.emptyTransactionID(productID: purchase.productID) }
        if let row = rows[purchase.transactionID] {
            guard row.productID == purchase.productID else {
                throw QueueError.transactionReused(purchase.transactionID, productID: row.productID, requested: purchase.productID)
            }
            // Added again after its download was cancelled (or failed): it starts again, as `start` would.
            let current = await download(row)
            if current.state == .cancelled || current.state == .failed { try await startDownload(row) }
            return await transaction(row)
        }
        guard let catalog else { throw QueueError.unknownProduct(purchase.productID, catalog: "(none given)") }
        guard let product = catalog.catalog.product(purchase.productID) else {
            throw QueueError.unknownProduct(purchase.productID, catalog: catalog.location.absoluteString)
        }
        let row = TransactionRow(
            id: purchase.transactionID, productID: product.productID, kind: purchase.kind,
            state: purchase.kind == .restore ? .restored : .purchased, product: product,
            url: catalog.archiveURL(for: product), createdAt: Date())
        try journal.saveTransaction(row)
        rows[row.id] = row
        await deliver(.transactions([await transaction(row)]))  // before any update of its download
        try await startDownload(row)
        return await transaction(row)
    }

    /// Unfinished transactions, oldest first.
    public func transactions() async -> [ContentTransaction] {
        var result: [ContentTransaction] = []
        for row in rows.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            result.append(await transaction(row))
        }
        return result
    }

    /// One unfinished transaction.
    public func transaction(id: String) async -> ContentTransaction? {
        guard let row = rows[id] else { return nil }
        return await transaction(row)
    }

    /// Finishes a transaction whose downloads are all finished, failed or cancelled: it moves to the history.
    /// - Throws: ``QueueError/downloadsInFlight(transactionID:downloads:)`` while any download is
    ///   waiting, active or paused (the content is not installed yet); ``QueueError/unknownTransaction(_:)``.
    public func finish(_ transactionID: String) async throws(QueueError) {
        guard let row = rows[transactionID] else { throw .unknownTransaction(transactionID) }
        let current = await transaction(row)
        let inFlight = current.downloads.filter { $0.state.isInFlight }
        guard inFlight.isEmpty else {
            throw .downloadsInFlight(
                transactionID: transactionID, downloads: inFlight.map { "\($0.productID) \($0.state.rawValue)" })
        }
        do { try journal.finishTransaction(row, at: Date()) } catch {
            throw .journal(path: store.journalFile.path, reason: "\(error)")
        }
        // The caller may have seen the final state by asking before the engine's update was
        // forwarded: deliver it first, so observers see every download end before its transaction.
        let undelivered = current.downloads.filter { deliveredStates[$0.transactionID] != $0.state }
        rows[transactionID] = nil  // before any suspension: a second finish now fails cleanly
        deliveredStates[transactionID] = nil
        if !undelivered.isEmpty { await deliver(.downloads(undelivered)) }
        var finished = current
        finished.state = .finished
        await deliver(.transactions([finished]))
        announced.remove(transactionID)
    }

    /// StoreKit's behaviour: cancels the transaction's downloads still in flight, then finishes it.
    public func cancelDownloadsAndFinish(_ transactionID: String) async throws(QueueError) {
        guard let row = rows[transactionID] else { throw .unknownTransaction(transactionID) }
        localFailures[row.productID] = nil
        for download in await transaction(row).downloads where download.state.isInFlight {
            await manager.cancelAndWait(download.productID)
        }
        try await finish(transactionID)
    }

    // MARK: Downloads

    /// Starts (or retries) a download: waiting → admitted; failed or cancelled → again from its bytes.
    public func start(_ download: ContentDownload) async throws {
        guard let row = rows[download.transactionID] else {
            throw QueueError.unknownTransaction(download.transactionID)
        }
        try await startDownload(row)
    }

    /// Pauses a download (keeps its bytes; every transaction of the product shares it) and returns once its transfer has stopped: no byte is written after it
    /// returns, and the last update published carries the bytes kept. Idempotent.
    public func pause(_ download: ContentDownload) async { await manager.pauseAndWait(download.productID) }

    /// Resumes a paused download. Idempotent.
    public func resume(_ download: ContentDownload) async { await manager.resume(download.productID) }

    /// Cancels a download and deletes its partial data; returns once its transfer has stopped and its files are
    /// gone, so an ``add(_:)`` or ``start(_:)`` of the same product right after it starts cleanly. Idempotent. The
    /// queue runs one download per product: every unfinished transaction of the product shares it, so they are all
    /// cancelled.
    public func cancel(_ download: ContentDownload) async { await manager.cancelAndWait(download.productID) }
}
