internal import ContentDelivery
internal import ContentDownloads
internal import ContentPackaging
internal import Foundation

/// One transaction as the daemon sends it.
struct WireTransaction: Encodable, Equatable, Sendable {
    var id: String
    var productID: String
    var kind: String
    var state: String
    var downloads: [ContentDownload]

    init(_ transaction: ContentTransaction) {
        id = transaction.id
        productID = transaction.productID
        kind = transaction.kind.rawValue
        state = transaction.state.rawValue
        downloads = transaction.downloads
    }
}

/// One download, once, with the unfinished transactions it serves (none for a download no transaction asked
/// for): the shape of the `download.*` notifications' params.
struct WireDownloadEntry: Encodable, Equatable, Sendable {
    var download: ContentDownload
    var transactionIDs: [String]
}

/// An installed product.
struct WireInstalled: Encodable, Equatable, Sendable {
    var productID: String
    @NullWhenEmpty var version: String?
    @NullWhenEmpty var contentURL: String?
}

/// An available update and what it fetches.
struct WireUpdate: Encodable, Equatable, Sendable {
    var productID: String
    var installedVersion: String
    var catalogVersion: String
    /// Bytes the update fetches (only what changed when measurable), else the whole archive.
    var downloadBytes: Int64
    var archiveBytes: Int64

    init(_ update: ContentUpdate) {
        productID = update.productID
        installedVersion = update.installedVersion.description
        catalogVersion = update.catalogVersion.description
        downloadBytes = update.downloadBytes ?? update.archiveBytes
        archiveBytes = update.archiveBytes
    }
}

/// A verification (or repair) report.
struct WireVerification: Encodable, Equatable, Sendable {
    var productID: String
    var contentVersion: String
    var isIntact: Bool
    var damaged: [String]
    var missing: [String]
    var extra: [String]
    var filesChecked: Int
    var bytesChecked: Int64

    init(_ report: ContentVerification) {
        productID = report.productID
        contentVersion = report.contentVersion.description
        isIntact = report.isIntact
        damaged = report.damaged
        missing = report.missing
        extra = report.extra
        filesChecked = report.filesChecked
        bytesChecked = report.bytesChecked
    }
}
