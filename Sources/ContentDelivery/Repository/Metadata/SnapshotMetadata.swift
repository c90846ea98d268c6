/// One metadata file a snapshot or timestamp names: its version, and optionally its length and hashes.
package struct MetaFile: Sendable, Equatable {
    /// The file's version.
    package var version: Int64
    /// Its exact length in bytes, when given.
    package var length: Int64?
    /// Its hashes by algorithm (`sha256`), when given.
    package var hashes: [String: String]?

    /// A reference to version `version`.
    package init(version: Int64, length: Int64? = nil, hashes: [String: String]? = nil) {
        self.version = version
        self.length = length
        self.hashes = hashes
    }

    /// Reads `{"version", "length"?, "hashes"?}`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        version = try fields.integer("version", minimum: 1)
        length = fields.members["length"] == nil ? nil : try fields.integer("length", minimum: 0)
        hashes = fields.members["hashes"] == nil ? nil : try TargetFile.readHashes(fields.object("hashes"))
    }

    /// The reference as metadata holds it.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["version": .integer(version)]
        if let length { members["length"] = .integer(length) }
        if let hashes { members["hashes"] = .object(hashes.mapValues { .string($0) }) }
        return .object(members)
    }
}

/// The `snapshot` role: the version of every targets metadata file (`targets.json` and each bin), so a client
/// never mixes files of two publishes.
package struct SnapshotMetadata: RoleMetadata {
    package static let type = "snapshot"

    package var header: MetadataHeader
    /// By file name (`targets.json`, `<bin>.json`).
    package var meta: [String: MetaFile]

    /// A snapshot from its parts.
    package init(header: MetadataHeader, meta: [String: MetaFile]) {
        self.header = header
        self.meta = meta
    }

    package init(fields: MetadataFields, header: MetadataHeader) throws(MetadataError) {
        self.header = header
        let metaFields = try fields.object("meta")
        var meta: [String: MetaFile] = [:]
        for (name, value) in metaFields.members {
            meta[name] = try MetaFile(MetadataFields(value, role: fields.role, path: "\(metaFields.path).\(name)"))
        }
        guard meta["targets.json"] != nil else { throw metaFields.invalid("targets.json", "is missing") }
        self.meta = meta
    }

    package var bodyJSON: [String: JSONValue] { ["meta": .object(meta.mapValues(\.json))] }
}

/// The `timestamp` role: the current snapshot's version (and length and hash), re-signed often.
package struct TimestampMetadata: RoleMetadata {
    package static let type = "timestamp"

    package var header: MetadataHeader
    /// The current `snapshot.json`.
    package var snapshot: MetaFile
    /// The root of the same snapshot as a hash tree (`snapshot_tree`), when the repository writes one.
    package var snapshotTree: SnapshotTreeReference?

    /// A timestamp naming `snapshot` (and its tree).
    package init(header: MetadataHeader, snapshot: MetaFile, snapshotTree: SnapshotTreeReference? = nil) {
        self.header = header
        self.snapshot = snapshot
        self.snapshotTree = snapshotTree
    }

    package init(fields: MetadataFields, header: MetadataHeader) throws(MetadataError) {
        self.header = header
        let metaFields = try fields.object("meta")
        guard metaFields.members.count == 1 else {
            throw fields.invalid("meta", "must name exactly one file, snapshot.json; it names \(metaFields.members.count)")
        }
        snapshot = try MetaFile(metaFields.object("snapshot.json"))
        snapshotTree = fields.members["snapshot_tree"] == nil ? nil : try SnapshotTreeReference(fields.object("snapshot_tree"))
    }

    package var bodyJSON: [String: JSONValue] {
        var members: [String: JSONValue] = ["meta": ["snapshot.json": snapshot.json]]
        if let snapshotTree { members["snapshot_tree"] = snapshotTree.json }
        return members
    }
}
