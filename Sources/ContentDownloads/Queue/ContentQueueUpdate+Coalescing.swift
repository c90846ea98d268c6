/// Progress-only updates of one product's downloads may replace one another in a slow listener's buffer.
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
        case .packsChanged(let id, _):
            return id == productID ? self : nil
        case .updatesAvailable(let updates):
            let matching = updates.filter { $0.productID == productID }
            return matching.isEmpty ? nil : .updatesAvailable(matching)
        }
    }
}
