internal import Logging

extension DownloadManager {
    /// Pauses a download like ``pause(_:)`` and returns once its transfer has stopped: no byte is written after
    /// it returns, and the snapshot published last carries the bytes it kept.
    package func pauseAndWait(_ productID: String) async {
        pause(productID)
        guard active.contains(productID), live[productID]?.stopIntent == .pause else { return }
        await withCheckedContinuation { stopWaiters[productID, default: []].append($0) }
    }

    /// Cancels a download and returns once its transfer has stopped and its files are deleted through the store:
    /// a plan or an attempt of the same product that follows never meets a fetch still writing, or a deletion
    /// still to come. Idempotent.
    package func cancelAndWait(_ productID: String) async {
        cancel(productID)
        await waitUntilStopped(productID)
    }

    /// Returns once a transfer of `productID` that was told to stop (pause or cancel, or replaced by another
    /// archive's download) has reported its stop; at once when none is stopping.
    package func waitUntilStopped(_ productID: String) async {
        let replacing = attempts[productID].map { replaced[$0] != nil } ?? false
        guard active.contains(productID), live[productID]?.stopIntent != nil || replacing else { return }
        await withCheckedContinuation { stopWaiters[productID, default: []].append($0) }
    }

    /// The transaction the download of `productID` serves now (the last to add or start it), `nil` without one.
    package func transactionID(of productID: String) -> String? { records[productID]?.transactionID }

    /// Wakes the callers waiting for a download's transfer to stop (it stopped, failed, was verified, or the
    /// manager shut down).
    func releaseStopWaiters(_ productID: String) {
        for waiter in stopWaiters.removeValue(forKey: productID) ?? [] { waiter.resume() }
    }

    /// Publishes the snapshot of every active download whose last one is at least a progress interval old, so
    /// progress (and `timeRemaining`) arrives at a steady cadence even when the server sends its bytes in bursts.
    func tickProgress() {
        let now = MonotonicTime.now()
        for id in active where now - (live[id]?.lastEmit ?? 0) >= options.progressInterval {
            emit(id, force: true)
        }
    }

    /// How long the cadence task sleeps: a quarter interval while transfers run, else a second; `nil` once shut down.
    func nextTickDelay() -> Double? {
        guard !isShutDown else { return nil }
        return active.isEmpty ? 1 : max(0.01, options.progressInterval / 4)
    }
}

extension DownloadManager {
    /// Forgets the finished download of a product whose content was removed (a withdrawn entitlement), so the
    /// store's status no longer shows it `finished`. A download still in flight is left alone.
    package func forgetFinished(_ productID: String) {
        guard let record = records[productID], record.downloadState == .finished, !active.contains(productID) else { return }
        records[productID] = nil
        live[productID] = nil
        do { try ledger.remove(productID) } catch {
            DownloadLog.transfer.error("cannot write the journal", metadata: ["product": "\(productID)", "error": "\(error)"])
        }
    }
}
