import ContentCommandLine
import ContentDownloads
import Foundation

/// Shared run of `download` and `restore` on a queue: open it, add the run's transactions, follow them on the
/// progress display until every download has stopped, then end through ``RunEnding``.
struct QueueRun {
    /// The queue the command made (not yet opened).
    let queue: ContentQueue
    /// `--json`: progress as JSON lines.
    let json: Bool
    /// `--quiet`: errors only.
    let quiet: Bool

    /// Runs it. `transactions` adds the run's transactions to the open queue (an error there closes the display
    /// and the queue and is rethrown); when it adds none and `nothingToDo` is given, that note ends the run.
    /// `finishTransactions` and `allDone` are as in ``RunEnding/end(transactions:outcome:queue:finishTransactions:allDone:)``.
    func run(
        finishTransactions: Bool, nothingToDo: String? = nil,
        transactions: (ContentQueue) async throws -> [ContentTransaction], allDone: (Int) -> String
    ) async throws {
        try await open()
        let store = queue.store
        // Old versions and used archives go to the trash as each install completes; a detached
        // `empty-trash` deletes them once this command is done, whatever its outcome.
        defer { TrashEmptier.startIfNeeded(store: store) }
        let started = ContinuousClock.now
        let reporter = ProgressReporters.make(json: json, quiet: quiet)
        let interrupted = InterruptFlag()
        let signals = interrupted.trapTerminationSignals { [queue] in Task { await queue.close() } }
        defer { signals.forEach { $0.cancel() } }
        let ending = RunEnding(json: json, quiet: quiet, reporter: reporter, interrupted: interrupted, started: started)
        let updates = queue.updates  // before adding: a download that ends at once is still seen
        let prefetchUpdates = queue.updates  // the prefetch downloads that follow, on a listener of their own
        let added: [ContentTransaction]
        do { added = try await transactions(queue) } catch {
            await reporter.finish(summary: nil)
            await queue.close()
            throw error
        }
        if added.isEmpty, let nothingToDo {
            await reporter.finish(summary: nil)
            await queue.close()
            ending.note(nothingToDo, important: false)
            return
        }
        let waiter = DownloadWaiter(store: store.root.path, reporter: reporter, interrupted: interrupted)
        let outcome = await waiter.wait(for: added, updates: updates)
        if !interrupted.isSet { await followPrefetches(waiter, updates: prefetchUpdates) }
        try await ending.end(
            transactions: added, outcome: outcome, queue: queue, finishTransactions: finishTransactions, allDone: allDone)
    }

    /// Shows the downloads of the prefetch packs that follow the purchases' own (the queue starts them once a
    /// purchase's essential packs are installed) on rows of their own, and returns once every prefetch has ended.
    private func followPrefetches(_ waiter: DownloadWaiter, updates: some AsyncSequence<ContentQueueUpdate, Never> & Sendable) async {
        let products = await queue.prefetchingProducts()
        guard !products.isEmpty else { return }
        let changes = updates.compactMap { update -> [PrefetchDownload]? in
            guard case .downloads(let downloads) = update else { return nil }
            let prefetches = downloads.filter { $0.transactionID == ContentDownload.noTransaction && products.contains($0.snapshot.productID) }
            return prefetches.isEmpty ? nil : prefetches.map { PrefetchDownload(snapshot: $0.snapshot) }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await waiter.wait(expected: products, changes: changes, key: \.snapshot.productID) }
            await queue.waitForPrefetches()
            // The prefetches ended; their downloads' last changes are on their way to the display. A prefetch that
            // failed before its download started has none: the wait ends after a moment.
            group.addTask { try? await Task.sleep(for: .seconds(2)) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Opens the queue: another driver holding the store, or a failed recovery of an interrupted install,
    /// becomes a message naming the store and exit status 1.
    private func open() async throws {
        _ = try await exitingOnOpenFailure(store: queue.store) { try await queue.open() }
    }
}

/// Runs `open` (a queue or a daemon on `store`): a store another process drives, a daemon that cannot start, or a
/// failed recovery of an interrupted install becomes a message naming the store and exit status 1.
func exitingOnOpenFailure<T>(store: Store, _ open: () async throws -> T) async throws -> T {
    do {
        return try await open()
    } catch let error as InstallError {
        Output.failure(error, prefix: "cannot recover the store \(store.root.path): ")
        throw ExitStatus.failure
    } catch let error as any ContentError {
        Output.failure(error)
        throw ExitStatus.failure
    }
}

/// Runs `body` (loading the catalog, looking products up); a ``DownloadError`` it throws becomes its message
/// on stderr and exit status 1.
func exitingOnDownloadError<T>(_ body: () throws(DownloadError) -> T) throws(ExitStatus) -> T {
    do {
        return try body()
    } catch {
        Output.failure(error)
        throw ExitStatus.failure
    }
}
