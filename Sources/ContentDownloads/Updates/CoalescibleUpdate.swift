internal import Foundation

/// An update a broadcaster may coalesce for a listener that reads slower than updates arrive.
///
/// A listener's buffer keeps every update except a progress-only one that a newer progress-only update
/// of the same download supersedes before it was read. What counts as progress-only is decided here,
/// against the previous update published about the same download.
package protocol CoalescibleUpdate: Sendable {
    /// What identifies one download.
    associatedtype DownloadKey: Hashable & Sendable

    /// The one download this update reports, or `nil` when it reports anything else (transactions, several
    /// downloads at once): such updates are never coalesced.
    var downloadKey: DownloadKey? { get }

    /// Whether, after `previous` (the last update published about the same download), this one only moves
    /// its progress: same state, error, version and installed folder, and `timeRemaining` not newly unknown
    /// (a stall turning it to -1 is news a listener must get).
    func onlyMovesProgress(since previous: Self) -> Bool
}

extension DownloadSnapshot: CoalescibleUpdate {
    /// The product identifier: the manager runs one download per product.
    package var downloadKey: String? { productID }

    package func onlyMovesProgress(since previous: DownloadSnapshot) -> Bool {
        productID == previous.productID && contentVersion == previous.contentVersion && state == previous.state
            && error == previous.error
            && !(timeRemaining == downloadTimeRemainingUnknown && previous.timeRemaining != downloadTimeRemainingUnknown)
    }
}

extension ContentDownload {
    /// Whether this download, after `previous` of the same transaction, only moved its progress.
    package func onlyMovesProgress(since previous: ContentDownload) -> Bool {
        transactionID == previous.transactionID && contentURL == previous.contentURL
            && snapshot.onlyMovesProgress(since: previous.snapshot)
    }
}

extension ContentQueueUpdate: CoalescibleUpdate {
    /// The product of a `downloads` update about one product (the transactions it serves share its transfer).
    package var downloadKey: String? {
        guard case .downloads(let downloads) = self, let first = downloads.first,
              downloads.allSatisfy({ $0.productID == first.productID })
        else { return nil }
        return first.productID
    }

    package func onlyMovesProgress(since previous: ContentQueueUpdate) -> Bool {
        guard case .downloads(let downloads) = self, case .downloads(let before) = previous,
              downloads.count == before.count
        else { return false }
        return zip(downloads, before).allSatisfy { $0.onlyMovesProgress(since: $1) }
    }

    /// The part of this update about `productID`, or `nil` when it has none.
    func only(productID: String) -> ContentQueueUpdate? {
        switch self {
        case .transactions(let transactions):
            let matching = transactions.filter { $0.productID == productID }
            return matching.isEmpty ? nil : .transactions(matching)
        case .downloads(let downloads):
            let matching = downloads.filter { $0.productID == productID }
            return matching.isEmpty ? nil : .downloads(matching)
        case .contentRemoved(let productIDs):
            return productIDs.contains(productID) ? .contentRemoved([productID]) : nil
        case .entitlementsReconciled:
            return nil
        }
    }
}
