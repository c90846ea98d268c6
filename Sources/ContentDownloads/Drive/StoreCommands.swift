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
        let ledger = try store.ledger()
        var outcomes: [String: Outcome] = [:]
        let lock = DriverLock.attempt(store: store)
        for id in productIDs {
            guard var record = try ledger.record(id) else {
                outcomes[id] = .unknownProduct
                continue
            }
            guard lock != nil else {
                _ = try ledger.request(command, for: id)
                outcomes[id] = .sentToDriver
                continue
            }
            // No driver runs, so nothing is fetching: a cancelled download's files go at once.
            if record.apply(command), command == .cancel {
                store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
            }
            record.takeRequestedCommand()
            try ledger.save(record)
            outcomes[id] = .applied(record.downloadState)
        }
        return outcomes
    }
}
