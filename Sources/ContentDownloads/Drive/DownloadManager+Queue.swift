internal import Foundation
internal import Logging

extension DownloadManager {
    /// Starts waiting downloads while fewer than `concurrency` run, oldest first.
    func admit() {
        guard lock != nil, !isShutDown else { return }
        let slots = max(1, options.concurrency)
        // Called after every event: with every slot taken (the usual case) there is nothing to pick. Otherwise
        // only the keys of waiting records are sorted — copying whole records here cost 5 % of the CPU of 200
        // small packages (`perf`).
        guard active.count < slots else { return rebalanceRates() }
        let now = MonotonicTime.now()
        var candidates: [(createdAt: Date, id: String)] = []
        for (id, record) in records where record.downloadState == .waiting && !active.contains(id)
            && (live[id]?.retryAt ?? 0) <= now
        {
            candidates.append((record.createdAt, id))
        }
        candidates.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        for candidate in candidates {
            guard active.count < slots else { break }
            guard var record = records[candidate.id] else { continue }
            let id = candidate.id
            // A chunk plan whose plan file is gone waits until the queue plans it again (it would fetch the wrong bytes).
            if needsPlanning(record) { continue }
            // A kept plan (a resume after a restart) is decoded and checked off the actor and off the curl thread first.
            if record.planKind == .chunks, planned[id] == nil {
                loadKeptPlan(of: record)
                continue
            }
            record.admit()
            save(&record)
            active.insert(id)
            lastAttemptID += 1
            attempts[id] = lastAttemptID
            live[id, default: LiveState()].retryAt = nil
            live[id]?.stopIntent = nil
            live[id]?.downloadedBytes = record.durableOffset
            live[id]?.pace.carryIfNone(journaled: record.timeRemaining, left: record.expectedLength - record.durableOffset)
            live[id]?.pace.start(at: now, bytes: record.durableOffset)
            live[id]?.pace.cap = Double(rateCap(for: record))
            live[id]?.toldProgress = false
            DownloadLog.transfer.debug(
                "start", metadata: ["product": "\(id)", "offset": "\(record.durableOffset)", "length": "\(record.expectedLength)",
                                    "attempt": "\(record.attempts + 1)", "url": "\(record.url)"])
            var request = TransferRequest(
                id: id, url: record.url, partialPath: record.partialPath,
                archivePath: store.archiveFile(productID: id, version: record.contentVersion).path,
                offset: record.durableOffset, keepsWrittenTail: record.keepsWrittenTail, expectedLength: record.expectedLength,
                expectedSHA256: record.expectedSHA256, validator: record.validator,
                maxBytesPerSecond: rateCap(for: record),
                chunked: record.planKind == .chunks ? store.chunkedTarget(productID: id, version: record.contentVersion) : nil)
            request.attemptID = lastAttemptID
            request.mirrors = mirrors(of: id, first: record.url)
            request.planned = record.planKind == .chunks ? planned[id] : nil
            submit(request)
            emit(id, force: true)
        }
        rebalanceRates()
    }

    /// Whether `record` is a chunk plan whose plan is neither handed over in memory (it may not be durable yet) nor
    /// (or no longer) in the store.
    func needsPlanning(_ record: TransferRecord) -> Bool {
        record.planKind == .chunks && planned[record.productID] == nil
            && !store.hasChunkPlan(productID: record.productID, version: record.contentVersion)
    }

    /// Whether `record`, read back at ``start()``, is a chunk plan that no transaction waits for (a repair, a
    /// selection change, an update found by a check) and that was running or waiting with nothing durable and no
    /// plan in the store: the process that planned it was killed before the plan was durable, and nothing will plan
    /// it again.
    func isUnplannedLeftover(_ record: TransferRecord) -> Bool {
        record.planKind == .chunks && record.transactionID == nil && [.active, .waiting].contains(record.downloadState)
            && record.durableOffset == 0 && !store.hasChunkPlan(productID: record.productID, version: record.contentVersion)
    }

    /// Whether the download of `productID` at `version` is a chunk plan that waits to be planned again.
    package func needsPlanning(_ productID: String, version: String) -> Bool {
        guard let record = records[productID], record.contentVersion == version else { return false }
        return needsPlanning(record)
    }

    /// Every mirror of a download, `first` (the one in use) first: a chunk plan fetches from all at once. With a URL
    /// authorizer only `first`, which the authorizer signs.
    func mirrors(of id: String, first: String) -> [String] {
        guard authorizer == nil, let candidates = routes[id]?.candidates, candidates.contains(first) else { return [first] }
        return [first] + candidates.filter { $0 != first }
    }

    /// The cap for one transfer: its own, and its share of the global cap.
    func rateCap(for record: TransferRecord) -> Int64 {
        var caps: [Int64] = []
        if record.maxBytesPerSecond > 0 { caps.append(record.maxBytesPerSecond) }
        if options.maxBytesPerSecond > 0 { caps.append(max(1, options.maxBytesPerSecond / Int64(max(1, active.count)))) }
        return caps.min() ?? 0
    }

    /// Re-divides the global cap among the transfers now running.
    func rebalanceRates() {
        guard options.maxBytesPerSecond > 0 else { return }
        for id in active { if let record = records[id] { applyRateCap(id, record) } }
    }

    /// Gives running download `id` its cap (``rateCap(for:)``): the engine's, and the pace's for its estimates.
    func applyRateCap(_ id: String, _ record: TransferRecord) {
        let cap = rateCap(for: record)
        engine.setRate(id, bytesPerSecond: cap)
        live[id]?.pace.cap = Double(cap)
    }

    /// Applies one engine event of the attempt running now; an event of an attempt whose end was applied (a stop
    /// answered for an attempt that had ended already) is dropped, and one of a replaced attempt only ends it.
    func handle(_ report: AttemptEvent) async {
        let event = report.event, id = event.id
        guard attempts[id] == report.attemptID else { return }
        if event.endsAttempt { attempts[id] = nil }
        if let old = replaced[report.attemptID] {
            guard event.endsAttempt else { return }  // the download it fetched for is gone: nothing of it is told
            endReplaced(id, old, attempt: report.attemptID, event: event)
            return
        }
        let now = MonotonicTime.now()
        switch event {
        case .started(let id, let offset, let restartedFromZero):
            logStart(id, offset: offset, restartedFromZero: restartedFromZero)
            if var record = records[id], record.writtenInBoot != BootIdentity.current || restartedFromZero,
               record.downloadState == .active
            {
                // The file is now cut to what this attempt keeps; what it writes next is this boot's. A restart from
                // zero emptied it: the old offset and validator go with it (journaled with this boot, they would
                // vouch for bytes no longer there until the checkpoint that follows is durable).
                record.startWriting(restartedFromZero: restartedFromZero, boot: BootIdentity.current)
                save(&record)
            }
            live[id]?.downloadedBytes = offset
            live[id]?.pace.start(at: now, bytes: offset)
            routeStarted(id)
            emit(id, force: false)
        case .progress(let id, let bytes, let fetched, let drain, let outlook, let placing):
            DownloadMetrics.received(bytes: bytes - (live[id]?.downloadedBytes ?? bytes))
            live[id]?.downloadedBytes = bytes
            live[id]?.pace.record(told: bytes, fetched: fetched, drain: drain, outlook: outlook, placing: placing, at: now)
            // The attempt's first news (bytes in place, or a known estimate) is told at once; then at the cadence.
            let news = live[id]?.toldProgress == false && (bytes > records[id]?.durableOffset ?? 0 || live[id]?.pace.isKnown == true)
            if news { live[id]?.toldProgress = true }
            emit(id, force: news)
        case .checkpoint(let id, let offset, let validator):
            checkpointed(id, offset: offset, validator: validator, at: now)
        case .verified(let id, let archivePath):
            active.remove(id)
            rememberMirror(id)
            // Every byte is on disk: say so first (progress 1), then free the transfer's slot — the
            // next download starts while this one installs, and events keep flowing, so installs of
            // several packages run side by side.
            if let expected = records[id]?.expectedLength {
                DownloadMetrics.received(bytes: expected - (live[id]?.downloadedBytes ?? expected))
                live[id]?.downloadedBytes = expected
            }
            emit(id, force: true)
            releaseStopWaiters(id)
            admit()
            postVerifyTasks[id] = Task {
                await self.verified(id, archivePath: archivePath)
                self.postVerifyTasks[id] = nil
            }
        case .failed(let id, let failure, let offset):
            active.remove(id)
            failed(id, failure: failure, offset: offset)
            releaseStopWaiters(id)
            admit()
        case .stopped(let id, let offset, let deleted):
            active.remove(id)
            stopped(id, offset: offset, deleted: deleted)
            releaseStopWaiters(id)
            admit()
        }
        DownloadMetrics.active(active.count)
    }

    /// A replaced attempt has ended: what it wrote (and a tree or archive it finished) is deleted, and the download
    /// that replaced it may start.
    private func endReplaced(_ id: String, _ old: ReplacedAttempt, attempt: UInt64, event: TransferEvent) {
        replaced[attempt] = nil
        active.remove(id)
        let current = records[id]?.contentVersion
        if case .verified(_, let archivePath) = event, old.version != current {
            store.discardPartial(productID: id, partialPath: archivePath)
        }
        discardReplaced(id, old, by: current)
        DownloadLog.transfer.debug("a replaced attempt ended", metadata: ["product": "\(id)", "version": "\(old.version)"])
        releaseStopWaiters(id)
        admit()
        DownloadMetrics.active(active.count)
    }

    /// Journals a durable offset (the bytes below it are fsynced).
    private func checkpointed(_ id: String, offset: Int64, validator: Validator?, at now: Double) {
        guard var record = records[id], record.downloadState != .cancelled else { return }
        record.checkpoint(
            offset: offset, validator: validator,
            timeRemaining: live[id].map { $0.pace.timeRemaining(total: record.expectedLength, counted: offset, at: now) },
            boot: BootIdentity.current)
        records[id] = record
        // Said before the journal write, so a trace of the process shows it after the fsync it relies on.
        DownloadLog.transfer.trace("journaling a durable offset", metadata: ["product": "\(id)", "offset": "\(offset)"])
        do {
            try ledger.recordCheckpoint(
                id, offset: offset, validator: validator, timeRemaining: record.timeRemaining,
                writtenInBoot: record.writtenInBoot)
        } catch {
            DownloadLog.transfer.error("cannot record a checkpoint", metadata: ["product": "\(id)", "error": "\(error)"])
        }
    }

    private func verified(_ id: String, archivePath: String) async {
        guard var record = records[id] else { return }
        live[id]?.pace.stop()
        planned[id] = nil  // every byte is in: no attempt follows
        DownloadLog.transfer.debug("verified", metadata: ["product": "\(id)", "archive": "\(archivePath)"])
        if record.downloadState == .cancelled {
            store.discardTransfer(productID: id, version: record.contentVersion, partialPath: archivePath)
            return
        }
        record.markVerified(archivePath: archivePath)
        live[id]?.downloadedBytes = record.expectedLength
        save(&record)
        if let postVerify {
            do {
                try await postVerify(VerifiedArchive(
                    productID: id, contentIdentifier: record.contentIdentifier,
                    contentVersion: record.contentVersion, archivePath: archivePath, plan: record.planKind ?? .wholeArchive))
                // A chunk plan's tree is in the store now: its plan, placed-chunks log and manifest copy are spent.
                if record.planKind == .chunks {
                    store.discardTransfer(productID: id, version: record.contentVersion, partialPath: record.partialPath)
                }
            } catch {
                // A download that replaced this one meanwhile (another archive) is not what failed to install.
                guard var current = records[id], current.expectedSHA256 == record.expectedSHA256 else { return }
                let failure = error as? DownloadError ?? DownloadError(code: .io, message: "\(error)")
                DownloadMetrics.failed(code: failure.code.rawValue)
                current.fail(with: failure)
                save(&current)
                emit(id, force: true)
                return
            }
        }
        guard var current = records[id], current.expectedSHA256 == record.expectedSHA256, current.downloadState != .cancelled else { return }
        current.finish(installed: postVerify != nil)
        DownloadMetrics.finished()
        save(&current)
        emit(id, force: true)
    }

    private func failed(_ id: String, failure: TransferFailure, offset: Int64) {
        guard var record = records[id] else { return }
        live[id]?.pace.stop()
        guard record.downloadState == .active else { return }  // paused or cancelled meanwhile
        record.keep(offset: offset)
        live[id]?.downloadedBytes = record.durableOffset
        let verdict = failure.verdict(for: &record)
        var final = verdict.final
        record.note(verdict.error)
        if case .install = failure {  // refused: nothing of it is kept, the manifest is fetched and checked again
            store.discardTransfer(productID: id, version: record.contentVersion, partialPath: record.partialPath)
            planned[id] = nil
            record.restartFromZero()
            live[id]?.downloadedBytes = 0
        }
        if verdict.restartFromZero {
            store.discardPartial(productID: id, partialPath: record.partialPath)
            planned[id] = nil  // read back from the store by the next attempt, as its files now are
            record.restartFromZero()
            live[id]?.downloadedBytes = 0
        }
        switch reroute(id, failure: failure, givingUp: final != nil || record.attempts + 1 >= options.maxAttempts, record: &record) {
        case .unchanged:
            break
        case .retryNow:
            record.retry()
            live[id]?.retryAt = nil
            save(&record)
            emit(id, force: true)
            return  // handle(_:) admits it again
        case .fail(let error):
            final = error
        }
        record.countAttempt()
        final = final.map { withTrustAdvice($0, id) }
        if let final {
            DownloadLog.transfer.debug("failed", metadata: ["product": "\(id)", "reason": "\(final.message)"])
            DownloadMetrics.failed(code: final.code.rawValue)
            record.fail(with: final)
        } else if record.attempts >= options.maxAttempts {
            DownloadMetrics.failed(code: verdict.error.code.rawValue)
            record.fail(with: withTrustAdvice(verdict.error, id))
        } else {
            DownloadMetrics.retried()
            DownloadLog.transfer.debug(
                "retry", metadata: ["product": "\(id)", "attempt": "\(record.attempts)", "reason": "\(verdict.error.message)"])
            record.retry()
            scheduleRetry(id, attempt: record.attempts, verdict: verdict)
        }
        if record.downloadState == .failed { planned[id] = nil }  // a later request plans or loads it again
        save(&record)
        emit(id, force: true)
    }

    /// Sets when a failed download may be admitted again and wakes the admission then: at once after a
    /// restart from zero (nothing to back off from), else after the backoff or the server's `Retry-After`.
    private func scheduleRetry(_ id: String, attempt: Int, verdict: FailureVerdict) {
        let delay = verdict.restartFromZero && verdict.retryAfter == nil
            ? 0 : options.retryDelay(attempt: attempt, retryAfter: verdict.retryAfter)
        live[id]?.retryAt = MonotonicTime.now() + delay
        guard delay > 0 else { return }
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            await self?.admit()
        }
    }

    private func stopped(_ id: String, offset: Int64, deleted: Bool) {
        guard var record = records[id] else { return }
        live[id]?.pace.stop()
        let intent = live[id]?.stopIntent
        live[id]?.stopIntent = nil
        DownloadLog.transfer.debug(
            "stopped", metadata: ["product": "\(id)", "offset": "\(offset)", "why": "\(intent.map { "\($0)" } ?? "interrupted")"])
        if offset >= 0, !deleted, record.downloadState != .cancelled {
            record.keep(offset: offset)
            // What the transfer kept, durably, and exactly what the next attempt resumes from (a whole archive's
            // write buffer flushed; a chunk plan's chunks in place, synced): never the count of bytes received.
            live[id]?.downloadedBytes = offset
        }
        switch intent {
        case .cancel, .pause:
            break  // the state was set when the command arrived
        case .none:
            record.interrupt()  // continues next run
        }
        if record.downloadState == .cancelled {
            store.discardTransfer(productID: id, version: record.contentVersion, partialPath: record.partialPath)
            planned[id] = nil
            record.restartFromZero()
            live[id]?.downloadedBytes = 0
        }
        save(&record)
        emit(id, force: true)
    }

    /// Logs how a transfer attempt began: resumed with a range the server honoured, restarted from zero
    /// because it sent the whole file (range ignored, or the file changed), or from the first byte.
    private func logStart(_ id: String, offset: Int64, restartedFromZero: Bool) {
        let decision = restartedFromZero ? "server sent the whole file: restarting from byte 0"
            : offset > 0 ? "resuming at byte \(offset)" : "from byte 0"
        DownloadLog.transfer.debug("range decision", metadata: ["product": "\(id)", "decision": "\(decision)"])
    }
}
