internal import ContentDelivery
internal import ContentPackaging
public import Foundation

extension ContentQueue {
    /// Waits until `productID`'s content is live and returns its folder (`ContentInfo.plist` + `Contents/`).
    ///
    /// The one call an embedder needs to await content, without following ``updates`` itself: it returns
    /// at once when the product is installed at the version its unfinished transaction (or the catalog)
    /// names, or when its download has finished; otherwise it follows the product's updates until the
    /// download finishes. Call it after ``open()`` and after adding the purchase (or restoring).
    /// - Throws: the download's ``DownloadError`` when it fails; ``QueueError/downloadCancelled(productID:)``
    ///   when it is cancelled; ``QueueError/noTransaction(productID:)`` when nothing downloads the product;
    ///   ``QueueError/closed(productID:)`` when the queue closes first; `CancellationError` when the calling
    ///   task is cancelled (its listener is removed).
    public func installed(productID: String) async throws -> URL {
        // Listen first, then read the state: a change between the two is still in the sequence.
        let changes = updates(for: productID)
        if let url = try await installedURL(productID) { return url }
        for await update in changes {
            try Task.checkCancellation()
            guard case .downloads(let downloads) = update else { continue }
            if let url = try Self.installedURL(of: downloads, productID: productID) { return url }
        }
        try Task.checkCancellation()
        throw QueueError.closed(productID: productID)
    }

    /// The product's folder if it is live now; `nil` while a download of it is still in flight.
    private func installedURL(_ productID: String) async throws -> URL? {
        let serving = rows.values.filter { $0.productID == productID }
        let wanted = serving.map(\.product.contentVersion).max() ?? catalog?.catalog.product(productID)?.contentVersion
        if let installed = store.installedVersion(forProductID: productID), wanted.map({ installed >= $0 }) ?? true,
           let url = store.contentURL(forProductID: productID)
        {
            return url
        }
        guard !serving.isEmpty else { throw QueueError.noTransaction(productID: productID) }
        var downloads: [ContentDownload] = []
        for row in serving { downloads.append(await download(row)) }
        if let url = try Self.installedURL(of: downloads, productID: productID) { return url }
        return nil
    }

    /// The folder of the first finished download, the failure of a stopped one, or `nil` while they run.
    private static func installedURL(of downloads: [ContentDownload], productID: String) throws -> URL? {
        if let url = downloads.first(where: { $0.state == .finished })?.contentURL { return url }
        guard let stopped = downloads.first(where: { $0.state == .failed || $0.state == .cancelled }) else { return nil }
        if stopped.state == .cancelled { throw QueueError.downloadCancelled(productID: productID) }
        throw stopped.error ?? DownloadError(
            code: .init(rawValue: "unknown"),
            message: "the download of \(productID) failed without a reason; start it again")
    }
}
