extension ContentQueue {
    /// Caps the total receive rate of the queue's downloads in bytes per second (0 = none), shared among the
    /// running ones; it replaces ``DownloadOptions/maxBytesPerSecond`` and applies to running transfers at once,
    /// so a service can leave room for its own traffic (a game that starts a match) and lift the cap afterwards.
    public func setRateLimit(bytesPerSecond: Int64) async {
        options.maxBytesPerSecond = max(0, bytesPerSecond)  // kept for the manager of a later ``open()``
        await manager.setTotalRateLimit(bytesPerSecond: bytesPerSecond)
    }

    /// Caps one download's receive rate in bytes per second (0 = none), on top of the queue's cap; applies to
    /// it at once if it is running, and is kept with the download (a restart keeps it) until it is added again.
    public func setRateLimit(_ download: ContentDownload, bytesPerSecond: Int64) async {
        await manager.setRateLimit(download.productID, bytesPerSecond: bytesPerSecond)
    }
}
