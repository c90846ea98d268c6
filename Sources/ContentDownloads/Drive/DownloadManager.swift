internal import Logging
package import ContentDelivery
internal import ContentPackaging
internal import Foundation

/// Drives the downloads of one store: admits up to `concurrency` transfers to the engine, applies
/// engine events to the journal, retries, computes progress and `timeRemaining`, and applies
/// pause/resume/cancel from this process or others.
///
/// Lifecycle: ``start()`` (takes the store's driver lock), then ``enqueue(_:url:)`` and commands,
/// then ``shutdown()`` (pauses and checkpoints running transfers; they resume on the next start).
/// Observe ``updates``: every state change is delivered, in order; progress of an active download every
/// ``DownloadOptions/progressInterval`` (0.25 s), steadily, however the bytes arrive.
package actor DownloadManager {
    /// Snapshots as downloads change from now on, for one listener (each access adds one).
    ///
    /// Every state change is delivered, in order, including `timeRemaining` becoming -1 when a transfer
    /// stalls; while a listener has not read them, progress-only snapshots of a download replace one
    /// another, so its buffer stays bounded. Ends after ``shutdown()`` once read; cancelling the iterating
    /// task or dropping the sequence removes the listener. Opaque so the implementation can change.
    package nonisolated var updates: some AsyncSequence<DownloadSnapshot, Never> & Sendable { published.subscribe() }
    nonisolated let published = UpdateBroadcaster<DownloadSnapshot>()
    let store: Store
    var options: DownloadOptions
    /// The one writer of the records (through the store's journal connection).
    let ledger: Ledger
    /// The store's journal, for the tables beside the records (the mirror each catalog prefers).
    let journal: SQLiteJournal
    let engine: TransferEngine
    var lock: DriverLock?
    var records: [String: TransferRecord] = [:]
    var live: [String: LiveState] = [:]
    var active: Set<String> = []
    /// The attempt (``TransferRequest/attemptID``) the engine runs for each download in ``active``: an event of any
    /// other attempt is about one that has ended and whose end was applied, and is dropped.
    var attempts: [String: UInt64] = [:]
    /// The last attempt number given (each admission takes the next).
    var lastAttemptID: UInt64 = 0
    /// Running attempts whose download ``enqueue(_:url:transactionID:plan:planned:)`` replaced with another
    /// archive's: the engine was told to stop them, and what each wrote is deleted when it reports its end — by
    /// that end alone, so the replacement's files (planned already, fetched once it ends) are never touched.
    var replaced: [UInt64: ReplacedAttempt] = [:]
    var postVerify: PostVerifyStep?
    /// Gives each transfer attempt a feed an overlapped install follows (`nil`: nobody follows).
    var feedProvider: (@Sendable (TransferRequest) -> GrowingArchive?)?
    var eventTask: Task<Void, Never>?
    /// Post-verify steps (installs) in flight, by download; shutdown waits for them.
    var postVerifyTasks: [String: Task<Void, Never>] = [:]
    var pollTask: Task<Void, Never>?
    /// Sends the progress of active downloads at ``DownloadOptions/progressInterval`` (``tickProgress()``).
    var cadenceTask: Task<Void, Never>?
    /// Callers of ``pauseAndWait(_:)`` waiting for their transfer's stop, by download.
    var stopWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    var isShutDown = false
    var routes: [String: ArchiveRoute] = [:]
    /// The checked manifest and plan of each chunk-plan download (``PlannedFetch``): handed over by the planner, or
    /// loaded from the store before a resumed download is admitted; kept for its retries, forgotten when its files
    /// are deleted or it ends.
    var planned: [String: PlannedFetch] = [:]
    /// Downloads whose kept plan is being loaded (``loadKeptPlan(of:)``).
    var loadingPlans: Set<String> = []
    var authorizer: ArchiveURLAuthorizer?

    /// Per-download state that only lives in memory.
    struct LiveState {
        var downloadedBytes: Int64 = 0
        var pace = TransferPace()
        /// Whether the running attempt's progress was told yet (its first is sent at once, not at the cadence).
        var toldProgress = false
        var lastEmit: Double = 0
        /// The `timeRemaining` of the last snapshot sent (a stall must be sent when it turns to -1).
        var sentTimeRemaining: Double = downloadTimeRemainingUnknown
        var retryAt: Double?
        var stopIntent: StopIntent?
    }

    /// Why a stop was sent to the engine.
    enum StopIntent { case pause, cancel }

    /// What a replaced attempt wrote, deleted when it ends (see ``replaced``).
    struct ReplacedAttempt {
        /// The version it fetched: its tree, plan and manifest are named by it.
        let version: String
        /// Its partial archive.
        let partialPath: String
    }

    /// Creates the engine over `store` (no thread, no lock yet); writes go through the store's one
    /// journal connection, shared with the ``ContentQueue`` and everything else in this process.
    package init(store: Store, options: DownloadOptions = DownloadOptions()) throws {
        self.store = store
        self.options = options
        self.journal = try store.journal()
        self.ledger = Ledger(journal: journal)
        engine = try TransferEngine(settings: options.transfer)
    }

    /// Installs the step that runs after verification (the installer).
    package func setPostVerifyStep(_ step: PostVerifyStep?) { postVerify = step }

    /// Installs the hook that attaches a ``GrowingArchive`` to each request handed to the engine,
    /// so the content queue can extract an archive while it downloads.
    package func setTransferFeedProvider(_ provider: (@Sendable (TransferRequest) -> GrowingArchive?)?) {
        feedProvider = provider
    }

    /// Takes the driver lock, reloads the journal (an `active` row means a crash: it waits again),
    /// applies commands left by other processes, and starts transferring.
    /// - Throws: ``DriverLockError/busy(store:pid:)`` when another process drives the store.
    package func start() throws {
        guard lock == nil else { return }
        lock = try DriverLock(store: store)
        for var record in try ledger.records() {
            if isUnplannedLeftover(record) {
                // Killed before its plan was durable: nothing of it is on disk to resume, so it never started.
                store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
                try ledger.remove(record.productID)
                continue
            }
            var changed = false
            if record.downloadState == .active {
                record.interrupt()
                changed = true
            }
            if record.planKind == nil {  // journaled before the column: resolved once, from what the download kept
                record.resolveLegacyPlanKind(store.legacyPlanKind(productID: record.productID, version: record.contentVersion))
                changed = true
            }
            if changed { try ledger.save(record) }
            records[record.productID] = record
            live[record.productID] = LiveState(downloadedBytes: record.durableOffset)
        }
        engine.start()
        let events = engine.events
        eventTask = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        let interval = options.commandPollInterval
        pollTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                await self?.pollCommands()
                await self?.reportStalls()
            }
        }
        cadenceTask = Task { [weak self] in
            while !Task.isCancelled, let pause = await self?.nextTickDelay() {
                try? await Task.sleep(for: .seconds(pause))
                await self?.tickProgress()
            }
        }
        pollCommands()
        admit()
    }

    /// Pauses and checkpoints running transfers (their rows go back to `waiting`, so the next run
    /// continues them), stops the engine and ends ``updates``.
    package func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        pollTask?.cancel()
        cadenceTask?.cancel()
        await engine.shutdown()
        await eventTask?.value
        for id in Array(stopWaiters.keys) { releaseStopWaiters(id) }
        while let (_, task) = postVerifyTasks.first {  // installs finish; they are never cut off
            await task.value
        }
        for id in active {
            guard var record = records[id] else { continue }
            record.interrupt()
            save(&record)
        }
        active.removeAll()
        attempts.removeAll()
        published.finish()
        lock = nil
    }

    /// Adds a product to the store's downloads, or reattaches to its existing download.
    ///
    /// An unfinished download of the same archive (same SHA-256, length and ``DownloadPlanKind``) keeps its bytes
    /// and state (a paused one stays paused); a failed one is retried from its bytes; a cancelled one, or one for
    /// a different archive or plan (a partial archive means nothing to a chunk plan), starts over.
    /// `transactionID` links the download to the queue's transaction (kept when `nil`); `plan` is how the queue
    /// decided to fetch it.
    @discardableResult
    package func enqueue(
        _ product: CatalogProduct, url: String, transactionID: String? = nil, plan: DownloadPlanKind,
        planned: PlannedFetch? = nil
    ) throws -> DownloadSnapshot {
        let id = product.productID
        self.planned[id] = planned
        if var existing = records[id], existing.expectedSHA256 == product.sha256.lowercased(),
           existing.expectedLength == product.length, existing.planKind == plan
        {
            existing.reattach(url: url, transactionID: transactionID)
            // A verified archive kept by `--no-install` is installed from the file; a tree installed in place is
            // never reused (a folder at that path is a new update's or repair's tree).
            if existing.downloadState == .finished, plan == .wholeArchive, let archive = existing.archivePath,
               FileManager.default.fileExists(atPath: archive)
            {
                save(&existing)
                emit(id, force: true)  // observers waiting for a terminal state get one
                return snapshot(of: id)!
            }
            // A download that ended (cancelled, failed, finished) starts a new one: no rate or time of the old.
            let ended = [.cancelled, .failed, .finished].contains(existing.downloadState)
            existing.prepareToReattach()
            save(&existing)
            if live[id] == nil || ended { live[id] = LiveState(downloadedBytes: existing.durableOffset) }
            live[id]?.downloadedBytes = existing.durableOffset
            emit(id, force: true)
            admit()
            return snapshot(of: id)!
        }
        let partial = store.partialFile(productID: id).path
        if let existing = records[id], let attempt = attempts[id] {
            // Still running: stopped, and what it wrote is deleted when its end arrives; the new download is
            // admitted only then.
            replaced[attempt] = ReplacedAttempt(version: existing.contentVersion, partialPath: existing.partialPath)
            engine.cancel(id, attempt: attempt)
        } else if let existing = records[id] {
            discardReplaced(id, ReplacedAttempt(version: existing.contentVersion, partialPath: existing.partialPath),
                            by: product.contentVersion.description)
        } else {
            store.discardPartial(productID: id, partialPath: partial)
        }
        var record = TransferRecord(product, url: url, partialPath: partial, transactionID: transactionID, plan: plan)
        records[id] = record
        live[id] = LiveState()
        save(&record)
        emit(id, force: true)
        admit()
        return snapshot(of: id)!
    }

    /// Deletes what a replaced download wrote: its partial archive, and its tree, plan and manifest unless the
    /// download replacing it is of the same version (then they are the new download's, planned already).
    func discardReplaced(_ id: String, _ old: ReplacedAttempt, by version: String?) {
        store.discardPartial(productID: id, partialPath: old.partialPath)
        guard old.version != version else { return }
        store.discardUpdate(productID: id, version: old.version)
        store.discardManifest(productID: id, version: old.version)
    }

    /// Caps the total receive rate in bytes per second (0 = none), divided among the running transfers like
    /// ``DownloadOptions/maxBytesPerSecond``, which it replaces; applies to running transfers at once.
    package func setTotalRateLimit(bytesPerSecond: Int64) {
        options.maxBytesPerSecond = max(0, bytesPerSecond)
        for id in active { if let record = records[id] { applyRateCap(id, record) } }
    }

    /// Caps one download's receive rate in bytes per second (0 = none); applies to a running transfer at once.
    package func setRateLimit(_ productID: String, bytesPerSecond: Int64) {
        guard var record = records[productID] else { return }
        record.capRate(bytesPerSecond: bytesPerSecond)
        save(&record)
        if active.contains(productID) { applyRateCap(productID, record) }
    }

    /// The kind and kept bytes of an unfinished attempt of `productID` at `version` that kept bytes (waiting,
    /// active, paused or failed), for the plan stage: a whole-archive attempt under way finishes as it began.
    package func stoppedAttempt(of productID: String, version: String) -> (kind: DownloadPlanKind?, bytes: Int64)? {
        guard let record = records[productID], record.contentVersion == version,
              [.waiting, .active, .paused, .failed].contains(record.downloadState)
        else { return nil }
        let bytes = live[productID]?.downloadedBytes ?? record.durableOffset
        return bytes > 0 ? (record.planKind, bytes) : nil
    }

    /// The current snapshot of one download.
    package func snapshot(of productID: String) -> DownloadSnapshot? {
        guard let record = records[productID] else { return nil }
        var snapshot = DownloadSnapshot(record: record)
        snapshot.servedTransactionID = record.transactionID
        if let state = live[productID], record.downloadState != .finished {
            snapshot.downloadedBytes = state.downloadedBytes
            snapshot.progress = record.expectedLength > 0
                ? min(1, Double(state.downloadedBytes) / Double(record.expectedLength)) : 0
            snapshot.timeRemaining = record.downloadState == .active
                ? state.pace.timeRemaining(total: record.expectedLength, counted: state.downloadedBytes, at: MonotonicTime.now())
                : downloadTimeRemainingUnknown
        }
        return snapshot
    }

    /// Every download in the store.
    package func snapshots() -> [DownloadSnapshot] {
        records.values.sorted { ($0.createdAt, $0.productID) < ($1.createdAt, $1.productID) }
            .compactMap { snapshot(of: $0.productID) }
    }

    // MARK: Internals shared by the extensions

    func save(_ record: inout TransferRecord) {
        record.touch()
        records[record.productID] = record
        do { try ledger.save(record) } catch {
            // The journal is the crash-recovery record; without it continuing would lie later.
            DownloadLog.transfer.error(
                "cannot write the journal", metadata: ["path": "\(store.journalFile.path)", "error": "\(error)"])
        }
    }

    func emit(_ id: String, force: Bool) {
        let now = MonotonicTime.now()
        guard let snapshot = snapshot(of: id) else { return }
        if !force, let last = live[id]?.lastEmit, now - last < options.progressInterval { return }
        live[id]?.lastEmit = now
        live[id]?.sentTimeRemaining = snapshot.timeRemaining
        published.yield(snapshot)
    }
}
