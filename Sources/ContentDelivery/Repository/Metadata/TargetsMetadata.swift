/// A `targets` role — the top-level one or a delegated bin: the target files it lists and, for the top-level
/// role, the succinct hashed-bin delegation that hands every path to a bin.
package struct TargetsMetadata: RoleMetadata {
    package static let type = "targets"

    package var header: MetadataHeader
    /// By target path.
    package var targets: [String: TargetFile]
    /// The delegation, when this role delegates.
    package var delegations: Delegations?

    /// A targets role from its parts.
    package init(header: MetadataHeader, targets: [String: TargetFile] = [:], delegations: Delegations? = nil) {
        self.header = header
        self.targets = targets
        self.delegations = delegations
    }

    package init(fields: MetadataFields, header: MetadataHeader) throws(MetadataError) {
        self.header = header
        let targetFields = try fields.object("targets")
        var targets: [String: TargetFile] = [:]
        for (path, value) in targetFields.members {
            targets[path] = try TargetFile(MetadataFields(value, role: fields.role, path: "\(targetFields.path).\(path)"))
        }
        self.targets = targets
        delegations = fields.members["delegations"] == nil ? nil : try Delegations(fields.object("delegations"))
    }

    package var bodyJSON: [String: JSONValue] {
        var members: [String: JSONValue] = ["targets": .object(targets.mapValues(\.json))]
        if let delegations { members["delegations"] = delegations.json }
        return members
    }
}

/// A targets role's delegation: the keys it trusts and, here, one succinct hashed-bin delegation.
package struct Delegations: Sendable, Equatable {
    /// The delegated roles' keys, by key ID.
    package var keys: [String: MetadataKey]
    /// The bins.
    package var succinctRoles: SuccinctRoles

    /// A delegation to `succinctRoles` with `keys`.
    package init(keys: [String: MetadataKey], succinctRoles: SuccinctRoles) {
        self.keys = keys
        self.succinctRoles = succinctRoles
    }

    /// Reads `{"keys", "succinct_roles"}`; a list of named `roles` is refused (not used by this repository format).
    package init(_ fields: MetadataFields) throws(MetadataError) {
        let keyFields = try fields.object("keys")
        var keys: [String: MetadataKey] = [:]
        for (keyID, value) in keyFields.members {
            keys[keyID] = try MetadataKey(MetadataFields(value, role: fields.role, path: "\(keyFields.path).\(keyID)"), keyID: keyID)
        }
        self.keys = keys
        guard fields.members["roles"] == nil else {
            throw fields.invalid("roles", "is not supported: delegate with succinct_roles (hashed bins)")
        }
        succinctRoles = try SuccinctRoles(fields.object("succinct_roles"))
        for keyID in succinctRoles.keys.keyIDs where keys[keyID] == nil {
            throw fields.invalid("succinct_roles.keyids", "lists key \(keyID), which delegations.keys does not hold")
        }
        guard succinctRoles.keys.threshold <= succinctRoles.keys.keyIDs.count else {
            throw fields.invalid(
                "succinct_roles.threshold",
                "is \(succinctRoles.keys.threshold) but only \(succinctRoles.keys.keyIDs.count) key(s) are listed")
        }
    }

    /// The delegation as metadata holds it.
    package var json: JSONValue {
        ["keys": .object(keys.mapValues(\.json)), "succinct_roles": succinctRoles.json]
    }
}
