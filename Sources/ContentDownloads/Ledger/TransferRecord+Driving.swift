package import Foundation

/// The transitions the driver (`DownloadManager`) applies as it runs a download: admission, checkpoints, failures
/// and retries, mirror changes, stops. With ``TransferRecord``'s commands, failure and install transitions they are
/// the only writes of a record's fields outside this folder, so each change of state is made one way wherever it
/// happens (a test reads the other folders for field writes).
extension TransferRecord {
    /// Admitted: its transfer starts (waiting → active).
    package mutating func admit() {
        downloadState = .active
    }

    /// The process stops driving it without a command (the driver started again, shut down, or the transfer
    /// stopped on its own): an active download waits for the next run; any other state stays.
    package mutating func interrupt() {
        if downloadState == .active { downloadState = .waiting }
    }

    /// Waits to be admitted again: a retry (after its backoff), or at once on another mirror.
    package mutating func retry() {
        downloadState = .waiting
    }

    /// Its transfer started writing in `boot`: what it writes next is that boot's (``writtenInBoot``); a restart
    /// from zero emptied the file, so the old offset and validator go with it.
    package mutating func startWriting(restartedFromZero: Bool, boot: String?) {
        if restartedFromZero { restartFromZero() }
        writtenInBoot = boot
    }

    /// The bytes below `offset` are durable (fsynced) in `boot`; the server's `validator` vouches for them and
    /// `timeRemaining` is the estimate at that moment.
    package mutating func checkpoint(offset: Int64, validator: Validator?, timeRemaining: Double?, boot: String?) {
        durableOffset = offset
        self.validator = validator
        writtenInBoot = boot
        if let timeRemaining { self.timeRemaining = timeRemaining }
    }

    /// The transfer stopped with `offset` bytes kept durably (a failure's or a stop's last durable offset).
    package mutating func keep(offset: Int64) {
        durableOffset = max(0, offset)
    }

    /// The last attempt failed with `error`, which may still be retried: kept for `status` while it waits.
    package mutating func note(_ error: DownloadError) {
        failure = error
    }

    /// One more attempt was used.
    package mutating func countAttempt() {
        attempts += 1
    }

    /// A body was not the archive (a checksum, length or chunk hash failed): counted, as a second one ends it.
    package mutating func countBadBody() {
        checksumFailures += 1
    }

    /// Fails over to the mirror at `url`: the previous server's validator means nothing there, and the new
    /// mirror gets every attempt again.
    package mutating func switchMirror(to url: String) {
        self.url = url
        validator = nil
        attempts = 0
        checksumFailures = 0
    }

    /// Every byte arrived and was verified, and the install (when the driver runs one) is done.
    package mutating func finish(installed: Bool) {
        downloadState = .finished
        if installed { transferPhase = .installed }
    }

    /// Asked again (a purchase or update of the same archive): fetched from `url` now, for `transactionID` when given.
    package mutating func reattach(url: String, transactionID: String?) {
        self.url = url
        self.transactionID = transactionID ?? self.transactionID
    }

    /// The kind of a download journaled before the kind was, resolved once from what it kept.
    package mutating func resolveLegacyPlanKind(_ kind: DownloadPlanKind) {
        if planKind == nil { planKind = kind }
    }

    /// Caps this download's receive rate (bytes per second, 0 = none).
    package mutating func capRate(bytesPerSecond: Int64) {
        maxBytesPerSecond = max(0, bytesPerSecond)
    }

    /// A command another process requested was taken (applied or dropped).
    package mutating func takeRequestedCommand() {
        requestedCommand = nil
    }

    /// Stamps the record as written at `date`, right before it is saved.
    package mutating func touch(_ date: Date = Date()) {
        updatedAt = date
    }
}
