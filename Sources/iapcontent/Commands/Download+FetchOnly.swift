import ArgumentParser
import ContentDelivery
import ContentDownloads
import Foundation

extension IAPContent.Download {
    /// `--no-install`: the transfer engine alone — fetch and verify archives into `transfers/`,
    /// no transaction, no install (prefetching, mirroring, engine tests).
    func fetchOnly(
        source: CatalogSource, products: [CatalogProduct], options: DownloadOptions, authorizer: ArchiveURLAuthorizer?
    ) async throws {
        let manager = try DownloadManager(layout: storeOptions.layout, options: options)
        await manager.setArchiveURLAuthorizer(authorizer)
        do {
            try await manager.start()
        } catch let error as DriverLockError {
            printError(error.description)
            throw ExitCode(1)
        }
        let interrupted = InterruptFlag()
        let signals = Self.onTerminationSignals {
            interrupted.set()
            Task { await manager.shutdown() }
        }
        defer { signals.forEach { $0.cancel() } }

        for product in products {
            try await manager.enqueue(
                product, candidates: source.archiveURLCandidates(for: product), catalogURL: source.location.absoluteString)
        }
        let wanted = Set(productIDs)
        var states: [String: DownloadState] = [:]
        let printer = ProgressPrinter()
        var lastErrors: [String: String] = [:]
        for await snapshot in manager.updates where wanted.contains(snapshot.productID) {
            printer.show(snapshot)
            states[snapshot.productID] = snapshot.state
            if let error = snapshot.error { lastErrors[snapshot.productID] = error.message }
            if snapshot.state == .paused, states.count == wanted.count,
               states.values.allSatisfy({ $0 == .paused || !$0.isInFlight })
            {
                printLine("\(snapshot.productID) is paused; run `iapcontent resume \(snapshot.productID) --store \(storeOptions.store)` to continue.")
            }
            if states.count == wanted.count, states.values.allSatisfy({ !$0.isInFlight }) { break }
        }
        if interrupted.isSet {
            printLine("Paused. Run the same command again to resume.")
            throw ExitCode(3)
        }
        await manager.shutdown()
        let failed = productIDs.filter { states[$0] != .finished }
        if failed.isEmpty {
            printLine("All \(productIDs.count) download(s) finished and verified.")
            return
        }
        for id in failed {
            let state = states[id]?.rawValue ?? "unknown"
            printError("\(id) \(state)\(lastErrors[id].map { ": \($0)" } ?? "")")
        }
        throw ExitCode(1)
    }
}
