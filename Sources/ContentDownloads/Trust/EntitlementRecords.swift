internal import Foundation
internal import GRDB

/// What a store remembers about the entitlements documents it trusted, in the journal.
///
/// `entitlementTrust` keeps, per subject, the highest `sequence` accepted after verification — rollback
/// protection like `catalogTrust`'s `highestCatalogVersion`: it only grows (`MAX` in SQL) and is written
/// with `synchronous=FULL`, so a power loss cannot lower it either.
extension SQLiteJournal {
    /// The per-subject mark (``HighWaterMark``).
    static let entitlementSequence = HighWaterMark(table: "entitlementTrust", key: "subject", mark: "highestSequence")

    /// The highest `sequence` accepted for `subject`, or `nil` before the first one.
    func highestEntitlementSequence(subject: String) throws -> UInt64? {
        try Self.entitlementSequence.read(subject, in: self)
    }

    /// Raises the remembered sequence of `subject` to `sequence` (never lowers it). Call only after verification.
    func recordEntitlementSequence(_ sequence: UInt64, subject: String) throws {
        try Self.entitlementSequence.raise(subject, to: sequence, in: self)
    }
}
