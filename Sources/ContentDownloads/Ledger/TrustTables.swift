internal import GRDB

/// The journal's tables of trust, created with the rest of its schema: `catalogTrust` (per catalog URL, the highest
/// `catalogVersion` accepted, rollback protection, and the mirror that last delivered a verified archive) and
/// `entitlementTrust` (per subject, the highest entitlements `sequence` accepted). The trust stage (`Trust/`) reads
/// and raises them through ``HighWaterMark``; the schema lives here, with every other migration.
enum TrustTables {
    /// `v2-catalog-trust`: named and forward-only like every other migration.
    static func registerCatalogTrust(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-catalog-trust") { db in
            try db.create(table: "catalogTrust") { t in
                t.primaryKey("catalogURL", .text)
                t.column("highestCatalogVersion", .integer)
                t.column("preferredMirror", .text)
                t.column("updatedAt", .datetime).notNull()
            }
        }
    }

    /// `v4-entitlement-trust`.
    static func registerEntitlementTrust(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-entitlement-trust") { db in
            try db.create(table: "entitlementTrust") { t in
                t.primaryKey("subject", .text)
                t.column("highestSequence", .integer).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
    }
}
