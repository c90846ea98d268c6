import ContentCommandLine
import ContentDaemon
import ContentDownloads
import Foundation

/// Shared body of `pause`, `resume` and `cancel`: send, report per product, exit 1 on unknown products.
/// With a daemon serving the store, it applies them (and prints the state they left); else, as without one,
/// through the journal.
func sendStoreCommand(_ command: RequestedCommand, productIDs: [String], store: Store) throws {
    var viaJournal = productIDs
    if let daemon = DaemonClient.running(for: store) {
        viaJournal = []
        for id in productIDs {
            do {
                switch try daemon.send(command, productID: id) {
                case .applied(let state): Output.line("\(id): \(state.rawValue)")
                case .unknownDownload: viaJournal.append(id)  // a download with no transaction: the journal has it
                }
            } catch {
                Output.failure(error, prefix: "\(id): ")
                throw ExitStatus.failure
            }
        }
    }
    guard !viaJournal.isEmpty else { return }
    let outcomes = try StoreCommands.send(command, productIDs: viaJournal, store: store)
    var unknown: [String] = []
    for id in viaJournal {
        switch outcomes[id] {
        case .sentToDriver: Output.line("\(id): \(command.rawValue) sent to the running download")
        case .applied(let state): Output.line("\(id): \(state.rawValue)")
        case .unknownProduct, .none: unknown.append(id)
        }
    }
    if !unknown.isEmpty {
        Output.error("no download for \(unknown.joined(separator: ", ")) in \(store.root.path); see `iapcontent status --store \(store.root.path)`", code: "unknownDownload")
        throw ExitStatus.failure
    }
}
