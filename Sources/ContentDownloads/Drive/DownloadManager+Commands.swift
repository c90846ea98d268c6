internal import Foundation

extension DownloadManager {
    /// Pauses a waiting or active download (keeps its bytes). Idempotent.
    package func pause(_ productID: String) {
        guard var record = records[productID] else { return }
        switch record.downloadState {
        case .waiting:
            record.downloadState = .paused
        case .active:
            // Paused at once for observers here; the journal row changes when the engine reports the
            // stop with its final checkpoint (`stopped`), so another process never reads "paused"
            // with an offset that then still moves. A crash in those milliseconds leaves it active.
            record.downloadState = .paused
            record.timeRemaining = -1
            records[productID] = record
            live[productID]?.stopIntent = .pause
            engine.pause(productID)
            emit(productID, force: true)
            return
        case .paused, .finished, .failed, .cancelled:
            return
        }
        record.timeRemaining = -1
        save(&record)
        emit(productID, force: true)
    }

    /// Resumes a paused download with a new range request. Idempotent.
    package func resume(_ productID: String) {
        guard var record = records[productID], record.downloadState == .paused else { return }
        if active.contains(productID) {
            // Still stopping: the transfer is running until `.stopped` arrives; queue it again after.
        }
        record.downloadState = .waiting
        record.attempts = 0
        save(&record)
        emit(productID, force: true)
        admit()
    }

    /// Cancels a waiting, active or paused download and deletes its partial data. Idempotent.
    package func cancel(_ productID: String) {
        guard var record = records[productID] else { return }
        switch record.downloadState {
        case .cancelled, .finished:
            return
        case .active:
            live[productID]?.stopIntent = .cancel
            engine.cancel(productID)
        case .waiting, .paused, .failed:
            store.discardTransfer(productID: productID, version: record.contentVersion, partialPath: record.partialPath)
        }
        record.downloadState = .cancelled
        record.durableOffset = 0
        record.validator = nil
        record.timeRemaining = -1
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
        record.durableOffset = 0
        record.validator = nil
        live[productID]?.downloadedBytes = 0
        save(&record)
    }

    /// Applies commands other processes left in the journal.
    func pollCommands() {
        guard !isShutDown, let commands = try? journal.takeRequestedCommands() else { return }
        for (id, command) in commands {
            switch command {
            case .pause: pause(id)
            case .resume: resume(id)
            case .cancel: cancel(id)
            }
        }
    }
}
