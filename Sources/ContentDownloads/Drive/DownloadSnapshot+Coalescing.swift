/// Progress-only snapshots of one download may replace one another in a slow listener's buffer.
extension DownloadSnapshot: CoalescibleUpdate {
    /// The product identifier: the manager runs one download per product.
    package var downloadKey: String? { productID }

    package func onlyMovesProgress(since previous: DownloadSnapshot) -> Bool {
        productID == previous.productID && contentVersion == previous.contentVersion && state == previous.state
            && error == previous.error
            && !(timeRemaining == downloadTimeRemainingUnknown && previous.timeRemaining != downloadTimeRemainingUnknown)
    }
}
