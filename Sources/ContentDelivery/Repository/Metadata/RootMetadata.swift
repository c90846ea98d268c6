/// The `root` role: every top-level role's keys and threshold, and whether the repository uses consistent snapshots.
package struct RootMetadata: RoleMetadata {
    package static let type = "root"
    /// The four top-level roles, each of which root must name.
    package static let roleNames = ["root", "targets", "snapshot", "timestamp"]

    package var header: MetadataHeader
    /// `consistent_snapshot`: metadata as `VERSION.ROLE.json`, targets as `HASH.NAME`.
    package var consistentSnapshot: Bool
    /// Every key a top-level role lists, by key ID.
    package var keys: [String: MetadataKey]
    /// The keys and threshold of `root`, `targets`, `snapshot` and `timestamp`.
    package var roles: [String: RoleKeys]

    /// A root from its parts.
    package init(header: MetadataHeader, consistentSnapshot: Bool = true, keys: [String: MetadataKey], roles: [String: RoleKeys]) {
        self.header = header
        self.consistentSnapshot = consistentSnapshot
        self.keys = keys
        self.roles = roles
    }

    package init(fields: MetadataFields, header: MetadataHeader) throws(MetadataError) {
        self.header = header
        consistentSnapshot = try fields.optionalBool("consistent_snapshot") ?? false
        let keyFields = try fields.object("keys")
        var keys: [String: MetadataKey] = [:]
        for (keyID, value) in keyFields.members {
            keys[keyID] = try MetadataKey(MetadataFields(value, role: fields.role, path: "\(keyFields.path).\(keyID)"), keyID: keyID)
        }
        self.keys = keys
        let roleFields = try fields.object("roles")
        var roles: [String: RoleKeys] = [:]
        for name in Self.roleNames {
            let role = try RoleKeys(roleFields.object(name))
            for keyID in role.keyIDs where keys[keyID] == nil {
                throw roleFields.invalid(name, "lists key \(keyID), which signed.keys does not hold")
            }
            guard role.threshold <= role.keyIDs.count else {
                throw roleFields.invalid(name, "has threshold \(role.threshold) but only \(role.keyIDs.count) key(s)")
            }
            roles[name] = role
        }
        self.roles = roles
    }

    package var bodyJSON: [String: JSONValue] {
        [
            "consistent_snapshot": .bool(consistentSnapshot),
            "keys": .object(keys.mapValues(\.json)),
            "roles": .object(roles.mapValues(\.json)),
        ]
    }

    /// The keys and threshold of top-level role `name`.
    package func role(_ name: String) -> RoleKeys { roles[name] ?? RoleKeys(keyIDs: [], threshold: 1) }
}
