import Foundation

/// The repository as it stands: the newest root, the timestamp, the snapshot it names, and the top-level targets
/// the snapshot names, each parsed and verified against the root (expiry aside: an expired role is what
/// `repo refresh` is for).
struct RepositoryState {
    let layout: RepositoryLayout
    var root: SignedMetadata<RootMetadata>
    var timestamp: SignedMetadata<TimestampMetadata>
    var snapshot: SignedMetadata<SnapshotMetadata>
    var targets: SignedMetadata<TargetsMetadata>

    /// A state from its parts.
    init(
        layout: RepositoryLayout, root: SignedMetadata<RootMetadata>, timestamp: SignedMetadata<TimestampMetadata>,
        snapshot: SignedMetadata<SnapshotMetadata>, targets: SignedMetadata<TargetsMetadata>
    ) {
        self.layout = layout
        self.root = root
        self.timestamp = timestamp
        self.snapshot = snapshot
        self.targets = targets
    }

    /// Reads the repository in `layout`.
    init(layout: RepositoryLayout) throws(RepositoryError) {
        self.layout = layout
        guard let rootVersion = layout.latestRootVersion() else {
            throw .missingMetadata(path: layout.versioned("root", 1).path)
        }
        root = try Self.load(layout.versioned("root", rootVersion), role: "root")
        let rootURL = layout.versioned("root", rootVersion)
        do { try root.verifySelf() } catch { throw .metadata(path: rootURL.path, error) }
        timestamp = try Self.load(layout.timestamp, role: "timestamp")
        try Self.verify(timestamp, at: layout.timestamp, root: root.signed, role: "timestamp")
        let snapshotURL = layout.versioned("snapshot", timestamp.signed.snapshot.version)
        snapshot = try Self.load(snapshotURL, role: "snapshot")
        try Self.verify(snapshot, at: snapshotURL, root: root.signed, role: "snapshot")
        guard let targetsVersion = snapshot.signed.meta["targets.json"]?.version else {
            throw .metadata(path: snapshotURL.path, .invalidField(role: "snapshot", field: "signed.meta.targets.json", problem: "is missing"))
        }
        let targetsURL = layout.versioned("targets", targetsVersion)
        targets = try Self.load(targetsURL, role: "targets")
        try Self.verify(targets, at: targetsURL, root: root.signed, role: "targets")
        guard targets.signed.delegations != nil else {
            throw .metadata(
                path: targetsURL.path,
                .invalidField(role: "targets", field: "signed.delegations", problem: "is missing; the repository has no bins"))
        }
    }

    /// The bins delegation.
    var bins: SuccinctRoles { targets.signed.delegations!.succinctRoles }
    /// The keys the bins are signed with.
    var binKeys: [String: MetadataKey] { targets.signed.delegations!.keys }

    /// The current document of bin `name`, as the snapshot names it.
    func bin(_ name: String) throws(RepositoryError) -> SignedMetadata<TargetsMetadata> {
        guard let version = snapshot.signed.meta["\(name).json"]?.version else {
            throw .metadata(
                path: layout.versioned("snapshot", snapshot.signed.version).path,
                .invalidField(role: "snapshot", field: "signed.meta.\(name).json", problem: "is missing"))
        }
        let url = layout.versioned(name, version)
        let bin: SignedMetadata<TargetsMetadata> = try Self.load(url, role: name)
        do { try bin.verify(keys: binKeys, role: bins.keys, roleName: name) } catch { throw .metadata(path: url.path, error) }
        return bin
    }

    static func load<Role: RoleMetadata>(_ url: URL, role: String) throws(RepositoryError) -> SignedMetadata<Role> {
        let data = try RepositoryFiles.read(url)
        do { return try SignedMetadata<Role>(parsing: data, roleName: role) } catch { throw .metadata(path: url.path, error) }
    }

    static func verify<Role>(_ document: SignedMetadata<Role>, at url: URL, root: RootMetadata, role: String) throws(RepositoryError) {
        do { try document.verify(keys: root.keys, role: root.role(role), roleName: role) } catch {
            throw .metadata(path: url.path, error)
        }
    }
}
