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
    /// ``ContentQueue/installed(productID:)`` has nothing to wait for: no unfinished transaction downloads
    /// the product, and it is not installed at the catalog's version.
    case noTransaction(productID: String)
    /// The download ``ContentQueue/installed(productID:)`` waited for was cancelled.
    case downloadCancelled(productID: String)
    /// The queue was closed (or never opened) while ``ContentQueue/installed(productID:)`` waited.
    case closed(productID: String)
    /// A purchase without a transaction identifier (empty is reserved for ``ContentDownload/noTransaction``).
    case emptyTransactionID(productID: String)
    /// An unfinished transaction's identifier added again with another product.
    case transactionReused(String, productID: String, requested: String)

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
        case .noTransaction(let id):
            "no unfinished transaction downloads \(id) and it is not installed at the catalog's version; add the purchase (or restore) first, then wait"
        case .downloadCancelled(let id):
            "the download of \(id) was cancelled and its partial data deleted; start it again, or add the purchase again"
        case .closed(let id):
            "the queue was closed before \(id) was installed; open it again (it resumes the download), then wait again"
        case .emptyTransactionID(let id):
            "the purchase of \(id) has an empty transaction identifier; pass the store's transaction identifier (a receipt's id)"
        case .transactionReused(let id, let productID, let requested):
            "transaction \(id) is unfinished and buys \(productID), not \(requested); give the purchase of \(requested) its own transaction identifier"
        }
    }
}
