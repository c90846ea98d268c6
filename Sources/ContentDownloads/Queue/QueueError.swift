/// Why a queue call was refused, with what to do next.
public enum QueueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Finishing would drop content that is still on its way (waiting, active or paused downloads).
    case downloadsInFlight(transactionID: String, downloads: [String])
    /// No unfinished transaction has this identifier.
    case unknownTransaction(String)
    /// The product is not in the catalog (or the queue was opened without one).
    case unknownProduct(String, catalog: String)
    /// The product has no hosted content.
    case noHostedContent(String)
    /// The journal could not be read or written.
    case journal(path: String, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .downloadsInFlight(let id, let downloads):
            "transaction \(id) still has downloads in flight (\(downloads.joined(separator: ", "))); wait until they are finished (installed), or cancel them and finish with cancelDownloadsAndFinish"
        case .unknownTransaction(let id):
            "no unfinished transaction \(id); it was finished already or never added — see `iapcontent status`"
        case .unknownProduct(let id, let catalog):
            "product \(id) is not in the catalog \(catalog); check the product identifier or refresh the catalog"
        case .noHostedContent(let id):
            "product \(id) has no hosted content in the catalog"
        case .journal(let path, let reason):
            "cannot use the journal \(path): \(reason); check the store folder's permissions and free space"
        }
    }
}
