import ArgumentParser
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
            Output.error(error.description)
            throw ExitStatus.failure
        }
        let started = ContinuousClock.now
        let interrupted = InterruptFlag()
        let signals = Self.onTerminationSignals {
            interrupted.set()
            Task { await manager.shutdown() }
        }
        defer { signals.forEach { $0.cancel() } }

        do {
            for product in products {
                try await manager.enqueue(
                    product, candidates: source.archiveURLCandidates(for: product), catalogURL: source.location.absoluteString)
            }
        } catch {
            await manager.shutdown()
            throw error
        }
        // The display starts only now, so every path below ends it with finish(summary:).
        let reporter = ProgressReporters.make(json: json, quiet: global.quiet)
        let ending = RunEnding(json: json, quiet: global.quiet, reporter: reporter, interrupted: interrupted, started: started)
        let wanted = Set(productIDs)
        var states: [String: DownloadState] = [:]
        var firstBytes: [String: Int64] = [:]
        var lastBytes: [String: Int64] = [:]
        var lastErrors: [String: String] = [:]
        var lastSnapshots: [String: DownloadSnapshot] = [:]
        for await snapshot in manager.updates where wanted.contains(snapshot.productID) {
            await reporter.update(ProgressRow(snapshot))
            if firstBytes[snapshot.productID] == nil { firstBytes[snapshot.productID] = snapshot.downloadedBytes }
            lastBytes[snapshot.productID] = snapshot.downloadedBytes
            lastSnapshots[snapshot.productID] = snapshot
            if snapshot.state == .paused, !interrupted.isSet, states[snapshot.productID] != .paused {
                await reporter.message(
                    "\(snapshot.productID) is paused; run `iapcontent resume \(snapshot.productID) --store \(store.root.path)` to continue.")
            }
            states[snapshot.productID] = snapshot.state
            if let error = snapshot.error { lastErrors[snapshot.productID] = error.message }
            if states.count == wanted.count, states.values.allSatisfy({ !$0.isInFlight }) { break }
        }
        if interrupted.isSet {
            // Checkpointed and stopped (the journal keeps them `waiting` for the next run): shown as paused.
            for snapshot in lastSnapshots.values where snapshot.state.isInFlight {
                var row = ProgressRow(snapshot)
                row.state = DownloadState.paused.rawValue
                row.timeRemaining = -1
                await reporter.update(row)
            }
            await reporter.finish(summary: nil)
            ending.note("Paused. Run the same command again to resume.", important: true)
            throw ExitStatus.interrupted
        }
        await manager.shutdown()
        let elapsed = started.duration(to: .now)
        let bytes = lastBytes.reduce(Int64(0)) { $0 + max(0, $1.value - (firstBytes[$1.key] ?? $1.value)) }
        let finished = productIDs.filter { states[$0] == .finished }
        await reporter.finish(
            summary: RunSummary(
                files: finished.count, bytes: bytes,
                elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        let failed = productIDs.filter { states[$0] != .finished && states[$0] != .cancelled }
        let cancelled = productIDs.filter { states[$0] == .cancelled }
        for id in failed {
            let state = states[id]?.rawValue ?? "unknown"
            Output.error("\(id) \(state)\(lastErrors[id].map { ": \($0)" } ?? "")")
        }
        for id in cancelled { Output.error("\(id) cancelled; its partial data was deleted.") }
        if !failed.isEmpty { throw ExitStatus.failure }
        if !cancelled.isEmpty { throw ExitStatus.cancelled }
        ending.note("All \(productIDs.count) download(s) finished and verified.", important: false)
    }
}
