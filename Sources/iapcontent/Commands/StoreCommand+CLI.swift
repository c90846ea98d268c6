import ContentCommandLine
import ContentDownloads
import Foundation

/// Shared body of `pause`, `resume` and `cancel`: send, report per product, exit 1 on unknown products.
func sendStoreCommand(_ command: RequestedCommand, productIDs: [String], store: Store) throws {
    let outcomes = try StoreCommands.send(command, productIDs: productIDs, store: store)
    var unknown: [String] = []
    for id in productIDs {
        switch outcomes[id] {
        case .sentToDriver: Output.line("\(id): \(command.rawValue) sent to the running download")
        case .applied(let state): Output.line("\(id): \(state.rawValue)")
        case .unknownProduct, .none: unknown.append(id)
        }
    }
    if !unknown.isEmpty {
        Output.error("no download for \(unknown.joined(separator: ", ")) in \(store.root.path); see `iapcontent status --store \(store.root.path)`")
        throw ExitStatus.failure
    }
}
