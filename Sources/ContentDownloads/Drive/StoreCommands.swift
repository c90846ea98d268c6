internal import Foundation

/// pause/resume/cancel from a process that does not drive the store.
///
/// If a driver runs, the command is left in the journal and the driver applies it within its poll
/// interval (≤ ~0.3 s). If none runs, this process briefly takes the driver lock and applies it to
/// the journal itself, so `status` shows it at once and the next `download` honours it.
package enum StoreCommands {
    /// What happened to one product's command.
    package enum Outcome: Sendable, Equatable {
        /// Left for the running driver.
        case sentToDriver
        /// Applied directly (no driver running).
        case applied(DownloadState)
        /// No download for this product in the store.
        case unknownProduct
    }

    /// Sends `command` for each product.
    package static func send(_ command: RequestedCommand, productIDs: [String], store: Store) throws -> [String: Outcome] {
        let journal = try store.journal()
        var outcomes: [String: Outcome] = [:]
        let lock = DriverLock.attempt(store: store)
        for id in productIDs {
            guard var record = try journal.record(id) else {
                outcomes[id] = .unknownProduct
                continue
            }
            guard lock != nil else {
                _ = try journal.request(command, for: id)
                outcomes[id] = .sentToDriver
                continue
            }
            switch (command, record.downloadState) {
            case (.pause, .waiting), (.pause, .active):
                record.downloadState = .paused
            case (.resume, .paused):
                record.downloadState = .waiting
                record.attempts = 0
            case (.cancel, .waiting), (.cancel, .active), (.cancel, .paused), (.cancel, .failed):
                store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
                record.downloadState = .cancelled
                record.durableOffset = 0
                record.validator = nil
            default:
                break
            }
            record.requestedCommand = nil
            try journal.save(record)
            outcomes[id] = .applied(record.downloadState)
        }
        return outcomes
    }
}
