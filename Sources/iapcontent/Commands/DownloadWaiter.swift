import ContentDownloads

/// A download as ``DownloadWaiter`` follows it: the queue's ``ContentDownload`` (`download`, `restore`) or the
/// manager's bare ``DownloadSnapshot`` (`download --no-install`).
protocol FollowedDownload: Sendable {
    /// Its latest StoreKit fields.
    var snapshot: DownloadSnapshot { get }
    /// The row the display shows for it.
    var row: ProgressRow { get }
}

extension FollowedDownload {
    /// The snapshot's row.
    var row: ProgressRow { ProgressRow(snapshot) }
}

extension ContentDownload: FollowedDownload {}

/// The download of a purchase's prefetch packs, which starts once the purchase's own download finished: shown on
/// its own row (``ProgressRow/packs``), never as the purchase's.
struct PrefetchDownload: FollowedDownload {
    let snapshot: DownloadSnapshot
    var row: ProgressRow {
        var row = ProgressRow(snapshot)
        row.packs = true
        return row
    }
}

extension DownloadSnapshot: FollowedDownload {
    /// The snapshot itself.
    var snapshot: DownloadSnapshot { self }
}

/// Shared wait of `download` (with or without `--no-install`) and `restore`: follow a stream of download
/// changes until every expected download has stopped (finished, failed or cancelled), showing each change on
/// a ``ProgressReporter`` — including pause, resume and cancel sent from another shell.
struct DownloadWaiter {
    /// The store folder, for the resume hint.
    let store: String
    /// Where progress goes.
    let reporter: any ProgressReporter
    /// Set by Ctrl-C/SIGTERM: pauses then are ours, not another shell's, so no `resume` hint.
    let interrupted: InterruptFlag

    /// What the wait saw, by the key the caller follows its downloads under.
    struct Outcome<Download: FollowedDownload> {
        /// The last value of each download.
        var latest: [String: Download]
        /// The last error each download reported (kept when a later change carries none).
        var lastErrors: [String: DownloadError]
        /// Bytes received while waiting (for the summary line).
        var bytesThisRun: Int64

        /// The downloads that had not stopped when the wait ended (an interrupt ended it).
        var inFlight: [DownloadSnapshot] { latest.values.map(\.snapshot).filter(\.state.isInFlight) }
    }

    /// Waits until every download of `transactions` has stopped or `updates` (the queue's, taken before the
    /// transactions were added, so no change is missed) end (Ctrl-C closes the queue); keyed by transaction id.
    func wait(
        for transactions: [ContentTransaction], updates: some AsyncSequence<ContentQueueUpdate, Never>
    ) async -> Outcome<ContentDownload> {
        var initial: [String: ContentDownload] = [:]
        for transaction in transactions { for download in transaction.downloads { initial[transaction.id] = download } }
        let changes = updates.compactMap { update -> [ContentDownload]? in
            guard case .downloads(let downloads) = update else { return nil }
            return downloads
        }
        return await wait(expected: Set(initial.keys), initial: initial, changes: changes, key: \.transactionID)
    }

    /// Waits until every key in `expected` has a download that is not in flight, or `changes` ends.
    ///
    /// `initial` holds what is known before the first change; `key` names the download a value belongs to, and
    /// values under other keys are ignored. Each batch of changes is shown before the end is checked.
    func wait<Download: FollowedDownload>(
        expected: Set<String>, initial: [String: Download] = [:], changes: some AsyncSequence<[Download], Never>,
        key: (Download) -> String
    ) async -> Outcome<Download> {
        var outcome = Outcome(latest: initial, lastErrors: [:], bytesThisRun: 0)
        // Downloads still in flight are shown from the stream, which holds every change in order
        // (showing their current state first would replay older states after it).
        for download in initial.values where !download.snapshot.state.isInFlight {
            await reporter.update(download.row)
        }
        func allStopped() -> Bool {
            expected.allSatisfy { outcome.latest[$0].map { !$0.snapshot.state.isInFlight } ?? false }
        }
        if allStopped() { return outcome }
        var firstBytes: [String: Int64] = [:]
        var pauseNoted: Set<String> = []
        for await batch in changes {
            for download in batch where expected.contains(key(download)) {
                let id = key(download)
                let snapshot = download.snapshot
                if firstBytes[id] == nil { firstBytes[id] = snapshot.downloadedBytes }
                outcome.latest[id] = download
                if let error = snapshot.error { outcome.lastErrors[id] = error }
                await reporter.update(download.row)
                await notePause(snapshot, noted: &pauseNoted)
            }
            if allStopped() { break }
        }
        outcome.bytesThisRun = outcome.latest.reduce(0) { sum, entry in
            let bytes = entry.value.snapshot.downloadedBytes
            return sum + max(0, bytes - (firstBytes[entry.key] ?? bytes))
        }
        return outcome
    }

    /// Tells how to resume a download paused from another shell, once per pause.
    private func notePause(_ snapshot: DownloadSnapshot, noted: inout Set<String>) async {
        guard snapshot.state == .paused else {
            noted.remove(snapshot.productID)
            return
        }
        guard !interrupted.isSet, !noted.contains(snapshot.productID) else { return }
        noted.insert(snapshot.productID)
        await reporter.message(
            "\(snapshot.productID) is paused; run `iapcontent resume \(snapshot.productID) --store \(store)` to continue.")
    }
}
