import ContentDelivery
import ContentDownloads
import ContentPackaging
import Crypto
import Foundation
import TestSupport

/// Lowercase hex SHA-256.
func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

/// Lowercase hex SHA-256 of a file (nil if missing).
func sha256Hex(file: String) -> String? {
    guard let data = FileManager.default.contents(atPath: file) else { return nil }
    return sha256Hex([UInt8](data))
}

/// A catalog product for `bytes` at `path`.
func product(_ id: String, bytes: [UInt8], path: String = "archive.bin", url: String? = nil, sha: String? = nil) -> CatalogProduct {
    CatalogProduct(
        productID: id, contentVersion: ContentVersion("1.0")!, path: path, url: url, length: Int64(bytes.count),
        sha256: sha ?? sha256Hex(bytes), uncompressedSize: Int64(bytes.count), entryCount: 1)
}

/// Options that retry fast.
func fastOptions(maxAttempts: Int = 4, stall: Int = 30) -> DownloadOptions {
    var options = DownloadOptions()
    options.retryBaseDelay = 0.05
    options.retryMaxDelay = 0.2
    options.maxAttempts = maxAttempts
    options.transfer.lowSpeedTime = stall
    options.commandPollInterval = 0.1
    return options
}

/// A new store folder.
func makeStore() throws -> Store {
    try Store(root: try TemporaryDirectory.make(prefix: "store"))
}

extension Store {
    /// Deletes the store folder (test cleanup).
    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// Runs `manager` until `productID` reaches a terminal state (or `timeout`), then shuts it down.
/// Returns its snapshot when called, then every later one, in order.
func runToEnd(
    _ manager: DownloadManager, _ productID: String, timeout: Double = 60
) async -> [DownloadSnapshot] {
    let updates = manager.updates  // first: a change while the snapshot is read is still in it
    let current = await manager.snapshot(of: productID)
    return await runToEnd(manager, productID, updates: updates, from: current, timeout: timeout)
}

/// Follows `updates` (taken before the download started, so it holds every snapshot) until `productID`
/// reaches a terminal state (or `timeout`), then shuts `manager` down. Returns `current` and what followed.
func runToEnd(
    _ manager: DownloadManager, _ productID: String, updates: some AsyncSequence<DownloadSnapshot, Never>,
    from current: DownloadSnapshot? = nil, timeout: Double = 60
) async -> [DownloadSnapshot] {
    var seen = current.map { [$0] } ?? []
    if let current, !current.state.isInFlight {
        await manager.shutdown()
        return seen
    }
    let watchdog = Task {
        try await Task.sleep(for: .seconds(timeout))
        await manager.shutdown()
    }
    for await snapshot in updates where snapshot.productID == productID {
        seen.append(snapshot)
        if !snapshot.state.isInFlight { break }
    }
    watchdog.cancel()
    await manager.shutdown()
    return seen
}

/// Starts a manager on `store`, enqueues `product` from `url` and runs it to the end.
func download(
    _ product: CatalogProduct, url: String, store: Store, options: DownloadOptions, plan: DownloadPlanKind = .wholeArchive,
    timeout: Double = 60
) async throws -> (final: DownloadSnapshot?, all: [DownloadSnapshot], record: TransferRecord?) {
    let manager = try DownloadManager(store: store, options: options)
    let updates = manager.updates
    try await manager.start()
    try await manager.enqueue(product, url: url, plan: plan)
    let all = await runToEnd(manager, product.productID, updates: updates, timeout: timeout)
    let record = try store.ledger().record(product.productID)
    return (all.last, all, record)
}
