internal import Foundation
internal import GRDB

/// What a store remembers about the catalogs it trusted, in the journal (same file, same fsync rules).
///
/// `catalogTrust` keeps, per catalog URL, the highest `catalogVersion` accepted after verification
/// (rollback protection: it only ever grows, `MAX` in SQL, so two processes cannot lower it) and the
/// origin (`scheme://host:port`) of the mirror that last delivered a verified archive (tried first next time).
extension SQLiteJournal {
    /// The per-catalog mark (``HighWaterMark``).
    static let catalogVersion = HighWaterMark(table: "catalogTrust", key: "catalogURL", mark: "highestCatalogVersion")

    /// The highest `catalogVersion` accepted from `catalogURL`, or `nil` before the first one.
    public func highestCatalogVersion(catalogURL: String) throws -> UInt64? {
        try Self.catalogVersion.read(catalogURL, in: self)
    }

    /// Raises the remembered version to `version` (never lowers it). Call only after verification.
    public func recordCatalogVersion(_ version: UInt64, catalogURL: String) throws {
        try Self.catalogVersion.raise(catalogURL, to: version, in: self)
    }

    /// The origin of the mirror that last worked for `catalogURL`.
    public func preferredMirror(catalogURL: String) throws -> String? {
        try queue.read { db in
            try String.fetchOne(db, sql: "SELECT preferredMirror FROM catalogTrust WHERE catalogURL = ?", arguments: [catalogURL])
        }
    }

    /// Remembers the origin that delivered a verified archive for `catalogURL`.
    public func recordPreferredMirror(_ origin: String, catalogURL: String) throws {
        try queue.write { db in
            try db.executeCached(
                sql: """
                    INSERT INTO catalogTrust (catalogURL, preferredMirror, updatedAt) VALUES (?, ?, ?)
                    ON CONFLICT(catalogURL) DO UPDATE SET preferredMirror = excluded.preferredMirror,
                      updatedAt = excluded.updatedAt
                    """,
                arguments: [catalogURL, origin, JournalDate.text(Date())])
        }
    }
}
