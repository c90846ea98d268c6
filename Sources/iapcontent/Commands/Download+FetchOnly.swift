import ContentCommandLine
import ContentDelivery
import ContentDownloads
import Foundation

extension IAPContent.Download {
    /// `--no-install`: the transfer engine alone — fetch and verify archives into `transfers/`,
    /// no transaction, no install (prefetching, mirroring, engine tests).
    func fetchOnly(
        store: Store, source: CatalogSource, products: [CatalogProduct], options: DownloadOptions, authorizer: ArchiveURLAuthorizer?
    ) async throws {
        var options = options
        options.transfer.directWrites = true  // nobody reads these archives back soon: skip the page cache
        let manager = try DownloadManager(store: store, options: options)
        await manager.setArchiveURLAuthorizer(authorizer)
        do {
            try await manager.start()
        } catch let error as DriverLockError {
            Output.failure(error)
            throw ExitStatus.failure
        }
        let started = ContinuousClock.now
        let interrupted = InterruptFlag()
        let signals = interrupted.trapTerminationSignals { Task { await manager.shutdown() } }
        defer { signals.forEach { $0.cancel() } }

        let updates = manager.updates  // before enqueueing: a download that ends at once is still seen
        do {
            for product in products {
                // Only the archive is written (nothing is installed): its length, with the standard margin.
                do { try SpacePreflight.standard.check(store: store, archiveLength: product.length, uncompressedSize: 0) } catch {
                    Output.failure(error, prefix: "\(product.productID): ")
                    throw ExitStatus.failure
                }
                if let refusal = source.archiveURLRefusal(for: product) {
                    Output.failure(refusal, prefix: "\(product.productID): ")
                    throw ExitStatus.failure
                }
                try await manager.enqueue(
                    product, candidates: source.archiveURLCandidates(for: product), catalogURL: source.location.absoluteString,
                    plan: .wholeArchive)  // the verified archive is what `--no-install` keeps
            }
        } catch {
            await manager.shutdown()
            throw error
        }
        // The display starts only now, so every path below ends it with finish(summary:).
        let reporter = ProgressReporters.make(json: json, quiet: global.quiet)
        let ending = RunEnding(json: json, quiet: global.quiet, reporter: reporter, interrupted: interrupted, started: started)
        let waiter = DownloadWaiter(store: store.root.path, reporter: reporter, interrupted: interrupted)
        let outcome = await waiter.wait(expected: Set(productIDs), changes: updates.map { [$0] }, key: \.productID)
        // After Ctrl-C the signal handler already shut the manager down.
        if interrupted.isSet { try await ending.endInterrupted(inFlight: outcome.inFlight) }
        await manager.shutdown()
        try await ending.report(fetchResults(outcome), allDone: "All \(productIDs.count) download(s) finished and verified.")
    }

    /// What a fetch-only run did, per product asked for: verified archives count as completed (no result
    /// lines: nothing was installed); any other end is a failure or a cancellation message.
    private func fetchResults(_ outcome: DownloadWaiter.Outcome<DownloadSnapshot>) -> RunEnding.Results {
        let states = outcome.latest.mapValues(\.state)
        var results = RunEnding.Results(
            completed: productIDs.filter { states[$0] == .finished }.count, bytes: outcome.bytesThisRun)
        for id in productIDs where states[id] != .finished {
            if states[id] == .cancelled {
                results.cancellations.append(RunEnding.Problem(
                    message: "\(id) cancelled; its partial data was deleted.", code: DownloadError.Code.cancelled.rawValue))
            } else {
                results.failures.append(RunEnding.failure(id, states[id], outcome.lastErrors[id]))
            }
        }
        return results
    }
}
