internal import Foundation

extension DownloadManager {
    /// Pauses a waiting or active download (keeps its bytes). Idempotent.
    package func pause(_ productID: String) {
        guard var record = records[productID] else { return }
        let wasActive = record.downloadState == .active
        guard record.apply(.pause) else { return }
        if wasActive, let attempt = attempts[productID] {
            // Paused at once for observers here; the journal row changes when the engine reports the
            // stop with its final checkpoint (`stopped`), so another process never reads "paused"
            // with an offset that then still moves. A crash in those milliseconds leaves it active.
            records[productID] = record
            live[productID]?.stopIntent = .pause
            engine.pause(productID, attempt: attempt)
        } else {
            save(&record)
        }
        emit(productID, force: true)
    }

    /// Resumes a paused download with a new range request (one still stopping is admitted once its stop
    /// arrives). Idempotent.
    package func resume(_ productID: String) {
        guard var record = records[productID], record.apply(.resume) else { return }
        save(&record)
        emit(productID, force: true)
        admit()
    }

    /// Cancels a waiting, active, paused or failed download and deletes its partial data. Idempotent.
    package func cancel(_ productID: String) {
        guard var record = records[productID] else { return }
        let wasActive = record.downloadState == .active
        guard record.apply(.cancel) else { return }
        planned[productID] = nil
        if wasActive {
            live[productID]?.stopIntent = .cancel
            if let attempt = attempts[productID] { engine.cancel(productID, attempt: attempt) }  // the fetch deletes what it wrote when it stops
        } else {
            store.discardTransfer(productID: productID, version: record.contentVersion, partialPath: record.partialPath)
        }
        live[productID]?.downloadedBytes = 0
        save(&record)
        emit(productID, force: true)
    }

    /// Forgets what a stopped download of `productID` at `version` had fetched, because what it wrote is being built
    /// anew (an update's tree): its next attempt starts at byte 0. A running or finished download is left alone.
    func forgetProgress(_ productID: String, version: String) {
        guard var record = records[productID], record.contentVersion == version, !active.contains(productID),
              record.downloadState != .finished, record.durableOffset > 0
        else { return }
        record.restartFromZero()
        live[productID]?.downloadedBytes = 0
        save(&record)
    }

    /// Applies commands other processes left in the journal.
    func pollCommands() {
        guard !isShutDown, let commands = try? ledger.takeRequestedCommands() else { return }
        for (id, command) in commands {
            switch command {
            case .pause: pause(id)
            case .resume: resume(id)
            case .cancel: cancel(id)
            }
        }
    }
}
