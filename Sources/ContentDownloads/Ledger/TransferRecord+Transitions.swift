internal import Foundation

/// The typed face of a record and the transitions every writer applies the same way: the driver's
/// `DownloadManager`, a command-only process (`StoreCommands`) and the queue's crash recovery all change a record
/// through these, then write it through the ``Ledger``.
extension TransferRecord {
    /// The store the download is in (its files are under `<store>/transfers/`), as messages name it.
    package var storeRoot: String {
        URL(fileURLWithPath: partialPath).deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The install phase, typed (an unknown value reads as `downloading`).
    package var transferPhase: TransferPhase {
        get { TransferPhase(rawValue: phase) ?? .downloading }
        set { phase = newValue.rawValue }
    }

    /// The last failure, typed (its stable code and message), `nil` when the last attempt did not fail.
    package var failure: DownloadError? {
        get { lastErrorCode.map { DownloadError(code: DownloadError.Code(rawValue: $0), message: lastError ?? "") } }
        set {
            lastErrorCode = newValue?.code.rawValue
            lastError = newValue?.message
        }
    }

    /// Applies pause, resume or cancel to the record; false when the command does not apply in its state (each
    /// is idempotent). Pause: waiting or active → paused. Resume: paused → waiting, with every attempt again.
    /// Cancel: anything but finished → cancelled, its bytes forgotten (the caller deletes its files through the
    /// store, or has the fetch stop and delete them). `timeRemaining` becomes unknown on pause and cancel.
    package mutating func apply(_ command: RequestedCommand) -> Bool {
        switch (command, downloadState) {
        case (.pause, .waiting), (.pause, .active):
            downloadState = .paused
            timeRemaining = -1
        case (.resume, .paused):
            downloadState = .waiting
            attempts = 0
        case (.cancel, .waiting), (.cancel, .active), (.cancel, .paused), (.cancel, .failed):
            downloadState = .cancelled
            restartFromZero()
            timeRemaining = -1
        default:
            return false
        }
        return true
    }

    /// Forgets every byte the download kept: its next attempt starts at byte 0 with no validator.
    package mutating func restartFromZero() {
        durableOffset = 0
        validator = nil
    }

    /// Ends the download as failed with `error` (its code and words kept for `status` and a restart).
    package mutating func fail(with error: DownloadError) {
        downloadState = .failed
        failure = error
    }
}

extension TransferRecord {
    /// Every byte arrived and was verified (an archive at `archivePath`, or the finished tree of a chunk plan):
    /// the install comes next.
    package mutating func markVerified(archivePath: String) {
        durableOffset = expectedLength
        self.archivePath = archivePath
        transferPhase = .verified
        failure = nil
        timeRemaining = 0
    }

    /// The content is installed: the download is finished.
    package mutating func markInstalled() {
        downloadState = .finished
        transferPhase = .installed
        failure = nil
    }

    /// The verified archive could not be installed: failed at `verified`, so a reopen installs it again.
    package mutating func failInstall(with error: DownloadError) {
        fail(with: error)
        transferPhase = .verified
    }

    /// Nothing the download kept can be used any more (a crash lost its archive before the install): it waits to
    /// download again from byte 0.
    package mutating func restartDownload() {
        downloadState = .waiting
        transferPhase = .downloading
        restartFromZero()
        archivePath = nil
    }
}
