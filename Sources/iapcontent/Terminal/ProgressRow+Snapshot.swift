import ContentDownloads

extension ProgressRow {
    /// The row for one engine snapshot: StoreKit's fields as they are (speed and stall are added by
    /// ``ProgressTracker``); a waiting download's retry error is kept so the display can say why it waits.
    init(_ snapshot: DownloadSnapshot) {
        self.init(
            productID: snapshot.productID, contentIdentifier: snapshot.contentIdentifier, contentVersion: snapshot.contentVersion, state: snapshot.state.rawValue,
            downloadedBytes: snapshot.downloadedBytes, expectedBytes: snapshot.expectedContentLength,
            timeRemaining: snapshot.state == .active ? snapshot.timeRemaining : -1,
            error: snapshot.error)
    }
}
