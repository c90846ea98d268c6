package import Foundation
internal import GRDB

/// One row of the `transfers` table: everything needed to reattach to a download after a crash.
///
/// `durableOffset` is only ever written after the partial file was fsynced up to it.
package struct TransferRecord: Sendable, Equatable, Codable {
    /// The product identifier; the primary key (one download per product per store).
    package var productID: String
    /// StoreKit's content identifier.
    package var contentIdentifier: String
    /// The content version being downloaded.
    package var contentVersion: String
    /// The archive URL.
    package var url: String
    /// The catalog's archive length.
    package var expectedLength: Int64
    /// The catalog's archive SHA-256 (lowercase hex).
    package var expectedSHA256: String
    /// The strong ETag seen first.
    package var etag: String?
    /// The Last-Modified seen first (used when there is no ETag).
    package var lastModified: String?
    /// Bytes fsynced in the partial file.
    ///
    /// Setting it to 0 (every restart from zero does) also forgets ``writtenInBoot``, so nothing of
    /// the old partial file is kept.
    package var durableOffset: Int64 {
        didSet { if durableOffset == 0 { writtenInBoot = nil } }
    }
    /// How the bytes become content (decided when the download was planned); `nil` only in a row journaled
    /// before the column existed, until ``DownloadManager/start()`` resolves it.
    package var planKind: DownloadPlanKind?
    /// The kernel boot (``BootIdentity``) whose process last wrote the partial file; `nil` = unknown.
    ///
    /// Recorded once a transfer attempt has cut the file to what it keeps (its `started` event)
    /// and again with each checkpoint. While it names the running boot, the bytes written past
    /// ``durableOffset`` are still valid (a killed process leaves the page cache behind), so a
    /// restart keeps the partial file's whole length instead of re-fetching them.
    package var writtenInBoot: String?
    /// `DownloadState` raw value.
    package var state: String
    /// `downloading`, `verified`, `installing`, `installed`.
    package var phase: String
    /// Attempts used since the last success or user action.
    package var attempts: Int
    /// Checksum mismatches seen (one automatic restart from zero, then `failed`).
    package var checksumFailures: Int
    /// ``DownloadError/Code`` raw value of the last error.
    package var lastErrorCode: String?
    /// The last error, in words.
    package var lastError: String?
    /// The partial file.
    package var partialPath: String
    /// The verified archive, once there is one.
    package var archivePath: String?
    /// The StoreKit transaction this download serves (set by the queue, later).
    package var transactionID: String?
    /// A command from another process (`pause`, `resume`, `cancel`) for the driver to apply.
    package var requestedCommand: String?
    /// Per-download receive-rate cap in bytes/s (0 = none).
    package var maxBytesPerSecond: Int64
    /// Last estimate of seconds remaining (-1 unknown), refreshed at checkpoints.
    package var timeRemaining: Double
    /// When the row was created.
    package var createdAt: Date
    /// When the row last changed.
    package var updatedAt: Date

    /// Creates a record; optional columns default to empty.
    package init(
        productID: String, contentIdentifier: String, contentVersion: String, url: String, expectedLength: Int64,
        expectedSHA256: String, planKind: DownloadPlanKind? = .wholeArchive, etag: String? = nil,
        lastModified: String? = nil, durableOffset: Int64 = 0, writtenInBoot: String? = nil,
        state: String = DownloadState.waiting.rawValue, phase: String = TransferPhase.downloading.rawValue,
        attempts: Int = 0, checksumFailures: Int = 0, lastErrorCode: String? = nil, lastError: String? = nil,
        partialPath: String, archivePath: String? = nil, transactionID: String? = nil,
        requestedCommand: String? = nil, maxBytesPerSecond: Int64 = 0, timeRemaining: Double = -1,
        createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.productID = productID
        self.contentIdentifier = contentIdentifier
        self.contentVersion = contentVersion
        self.url = url
        self.expectedLength = expectedLength
        self.expectedSHA256 = expectedSHA256
        self.planKind = planKind
        self.etag = etag
        self.lastModified = lastModified
        self.durableOffset = durableOffset
        self.writtenInBoot = writtenInBoot
        self.state = state
        self.phase = phase
        self.attempts = attempts
        self.checksumFailures = checksumFailures
        self.lastErrorCode = lastErrorCode
        self.lastError = lastError
        self.partialPath = partialPath
        self.archivePath = archivePath
        self.transactionID = transactionID
        self.requestedCommand = requestedCommand
        self.maxBytesPerSecond = maxBytesPerSecond
        self.timeRemaining = timeRemaining
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The state as a ``DownloadState`` (unknown values read as `failed`).
    package var downloadState: DownloadState {
        get { DownloadState(rawValue: state) ?? .failed }
        set { state = newValue.rawValue }
    }

    /// Whether a restart may keep the partial file's whole length: the last checkpoint was recorded
    /// in the running boot, so the bytes written after it are still in the page cache.
    package var keepsWrittenTail: Bool {
        writtenInBoot != nil && writtenInBoot == BootIdentity.current
    }

    /// The validator recorded for `If-Range`.
    package var validator: Validator? {
        get { etag == nil && lastModified == nil ? nil : Validator(etag: etag, lastModified: lastModified) }
        set {
            etag = newValue?.etag
            lastModified = newValue?.lastModified
        }
    }
}

/// The GRDB face of ``TransferRecord`` (kept internal so GRDB stays out of the package API).
struct TransferRow: JournalRecord {
    static var databaseTableName: String { "transfers" }
    var record: TransferRecord

    init(_ record: TransferRecord) { self.record = record }
    init(from decoder: any Decoder) throws { record = try TransferRecord(from: decoder) }
    func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }

    /// Inserts or replaces the whole row through one cached statement.
    ///
    /// The same effect as GRDB's `save` (every column written), without its per-call work: `save`
    /// encodes the record through `Codable` into a container and builds the `UPDATE` text each time,
    /// then falls back to an `INSERT`. With 200 small packages that was 8 % of the process's CPU
    /// (`perf`), for about nine saves per package.
    func upsert(_ db: Database) throws {
        let statement = try db.cachedStatement(sql: Self.upsertSQL)
        let r = record
        try statement.execute(arguments: [
            r.productID, r.contentIdentifier, r.contentVersion, r.url, r.expectedLength, r.expectedSHA256,
            r.etag, r.lastModified, r.durableOffset, r.state, r.phase, r.attempts, r.checksumFailures,
            r.lastErrorCode, r.lastError, r.partialPath, r.archivePath, r.transactionID, r.requestedCommand,
            r.maxBytesPerSecond, r.timeRemaining, JournalDate.text(r.createdAt), JournalDate.text(r.updatedAt),
            r.writtenInBoot, r.planKind?.rawValue,
        ])
    }

    /// Column order of ``upsert(_:)``'s arguments (the `v1-transfers` table, then `v3-written-in-boot` and
    /// `v4-plan-kind`).
    static let columns = [
        "productID", "contentIdentifier", "contentVersion", "url", "expectedLength", "expectedSHA256",
        "etag", "lastModified", "durableOffset", "state", "phase", "attempts", "checksumFailures",
        "lastErrorCode", "lastError", "partialPath", "archivePath", "transactionID", "requestedCommand",
        "maxBytesPerSecond", "timeRemaining", "createdAt", "updatedAt", "writtenInBoot", "planKind",
    ]

    static let upsertSQL =
        "INSERT INTO transfers (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) "
        + "ON CONFLICT(productID) DO UPDATE SET "
        + columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
}

/// Phases of a download beyond the StoreKit state, for the installer.
package enum TransferPhase: String, Sendable {
    /// Bytes are (or will be) arriving.
    case downloading
    /// The archive is complete and its SHA-256 matches.
    case verified
    /// The installer is extracting it.
    case installing
    /// The content is installed.
    case installed
}
