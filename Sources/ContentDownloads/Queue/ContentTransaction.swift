public import ContentPackaging
public import Foundation

/// How a transaction came to be: StoreKit's purchase or restore.
public enum TransactionKind: String, Sendable, Codable, CaseIterable {
    /// A new purchase the embedding service verified.
    case purchase
    /// A re-delivery of an earlier purchase (``ContentQueue/restoreCompletedTransactions()``).
    case restore
}

/// StoreKit's transaction states that matter for hosted content.
public enum TransactionState: String, Sendable, Codable, CaseIterable {
    /// Purchased; its downloads run until the caller finishes it.
    case purchased
    /// Restored; its downloads run until the caller finishes it.
    case restored
    /// Finished: in the history, used by restore.
    case finished
}

/// A purchase the embedding service has already verified (receipt, server check, …): the input to
/// ``ContentQueue/add(_:)``. The queue trusts it and attaches the product's hosted content.
public struct VerifiedPurchase: Sendable, Equatable {
    /// The transaction identifier (stable: adding the same id again reattaches to it).
    public var transactionID: String
    /// The product identifier, as in the catalog.
    public var productID: String
    /// Purchase or restore.
    public var kind: TransactionKind

    /// A verified purchase (or restore) of `productID`.
    public init(transactionID: String, productID: String, kind: TransactionKind = .purchase) {
        self.transactionID = transactionID
        self.productID = productID
        self.kind = kind
    }
}

/// One transaction as observers see it: StoreKit's `SKPaymentTransaction` for hosted content.
public struct ContentTransaction: Sendable, Equatable {
    /// The transaction identifier.
    public var id: String
    /// The product identifier.
    public var productID: String
    /// Purchase or restore.
    public var kind: TransactionKind
    /// Purchased, restored or finished.
    public var state: TransactionState
    /// One download per hosted content of the product.
    public var downloads: [ContentDownload]
}

/// One download of a transaction: StoreKit's `SKDownload` (the transfer's snapshot plus `contentURL`).
public struct ContentDownload: Sendable, Equatable {
    /// The transaction it belongs to; ``noTransaction`` for a download no transaction asked for (a repair).
    public var transactionID: String
    /// State, bytes, progress, time remaining and error of the transfer behind it.
    public var snapshot: DownloadSnapshot
    /// The installed folder (`ContentInfo.plist` + `Contents/`); set only in `finished` state.
    public var contentURL: URL?

    /// The ``transactionID`` of a download no transaction asked for (``ContentQueue/repair(productID:)``): empty,
    /// which no transaction identifier can be.
    public static let noTransaction = ""

    /// The product identifier.
    public var productID: String { snapshot.productID }
    /// StoreKit's content identifier.
    public var contentIdentifier: String { snapshot.contentIdentifier }
    /// The content version this download installs.
    public var contentVersion: String { snapshot.contentVersion }
    /// The archive's length in bytes (StoreKit's `expectedContentLength`).
    public var expectedContentLength: Int64 { snapshot.expectedContentLength }
    /// StoreKit's state; `finished` means installed.
    public var state: DownloadState { snapshot.state }
    /// 0…1.
    public var progress: Double { snapshot.progress }
    /// Seconds remaining, -1 when unknown.
    public var timeRemaining: Double { snapshot.timeRemaining }
    /// Why it failed.
    public var error: DownloadError? { snapshot.error }
}

/// What ``ContentQueue/updates`` delivers, in order.
public enum ContentQueueUpdate: Sendable, Equatable {
    /// Transactions were added, re-delivered at open, or finished (state `finished`).
    case transactions([ContentTransaction])
    /// Downloads changed state or progress.
    case downloads([ContentDownload])
    /// Installed content was removed: deleted (``ContentQueue/deleteContent(forProductID:)``), or its entitlement was
    /// revoked or expired (``ContentQueue/reconcileEntitlements()``): the product identifiers, so a service can unmount
    /// or hide them.
    case contentRemoved([String])
    /// The store was reconciled with the customer's entitlements, or the entitlements were refused (then nothing
    /// changed): after ``ContentQueue/open()`` and each ``ContentQueue/reconcileEntitlements()``.
    case entitlementsReconciled(EntitlementReconciliation)
    /// The packs or variants of installed content changed (``ContentQueue/changeSelection(productID:to:)`` or
    /// ``ContentQueue/requestPacks(_:productID:)`` installed a new selection): the product and its packs as they
    /// are now, so a service can show a pack installed without asking again.
    case packsChanged(productID: String, packs: [PackStatus])
    /// A new catalog (``ContentQueue/refreshCatalog(_:)``) offers installed products a newer version than any catalog
    /// before it did: the updates not announced yet, so a service can offer them (or download them) at once.
    case updatesAvailable([ContentUpdate])
}

/// The delegate-style observer (StoreKit's `SKPaymentTransactionObserver`), called in order.
/// Add it before ``ContentQueue/open()`` so the re-delivery of unfinished transactions reaches it.
public protocol ContentQueueObserver: AnyObject, Sendable {
    /// Transactions were added, re-delivered or finished.
    func updatedTransactions(_ transactions: [ContentTransaction]) async
    /// Downloads changed.
    func updatedDownloads(_ downloads: [ContentDownload]) async
    /// Installed content was removed because its entitlement was withdrawn (default: nothing).
    func removedContent(_ productIDs: [String]) async
    /// The store was reconciled with the entitlements, or they were refused (default: nothing).
    func reconciledEntitlements(_ outcome: EntitlementReconciliation) async
    /// The packs or variants of installed content changed: the product and its packs now (default: nothing).
    func changedPacks(productID: String, packs: [PackStatus]) async
    /// A new catalog offers installed products newer versions (default: nothing).
    func foundUpdates(_ updates: [ContentUpdate]) async
}

extension ContentQueueObserver {
    /// Does nothing: an observer that mounts or lists content implements it.
    public func removedContent(_ productIDs: [String]) async {}

    /// Does nothing: an observer that reports a refused entitlements document implements it.
    public func reconciledEntitlements(_ outcome: EntitlementReconciliation) async {}

    /// Does nothing: an observer that shows packs implements it.
    public func changedPacks(productID: String, packs: [PackStatus]) async {}

    /// Does nothing: an observer that offers updates implements it.
    public func foundUpdates(_ updates: [ContentUpdate]) async {}
}

/// An installed product whose catalog has a newer version.
public struct ContentUpdate: Sendable, Equatable {
    /// The product identifier.
    public var productID: String
    /// The version installed in the store.
    public var installedVersion: ContentVersion
    /// The newer version the catalog offers.
    public var catalogVersion: ContentVersion
    /// The bytes the update fetches: only what changed (the chunks of changed files, and the new manifest) when
    /// the installed version came from a chunk-indexed archive and its files are intact, else the whole
    /// archive. `nil` until measured (``ContentQueue/measuredUpdates(store:catalog:transport:)``).
    public var downloadBytes: Int64?
    /// The whole archive's size: what a full download fetches.
    public var archiveBytes: Int64 = 0
}
