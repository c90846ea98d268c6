internal import ContentDelivery
internal import Crypto
internal import Foundation

/// One run of the TUF client workflow (specification 1.0.x, §5) against the trusted metadata of a store: the root
/// chain, the timestamp, the version of each targets file it needs, those targets files, then the target.
///
/// The versions come from the snapshot tree the timestamp signs (docs/SNAPSHOT-TREE.md): the root node and one
/// page per file, a few kilobytes, instead of the whole `snapshot.json`; a repository without a tree (one written
/// by python-tuf) gives them through the standard snapshot. Each check throws its own code; nothing is written
/// until the caller saves ``trusted`` after the whole run passed.
struct RepositoryUpdate {
    /// The most root versions one update follows (python-tuf's bound); the next update continues from there.
    static let maxRootRotations = 32
    /// The most bytes read of each kind of file (endless data).
    static let rootLimit = 512 << 10
    static let timestampLimit = 16 << 10
    static let snapshotLimit = 16 << 20
    static let targetsLimit = 16 << 20

    var trusted: TrustedMetadata
    let fetch: RepositoryFetch
    let now: Date
    /// The role files to write when the run passes.
    private(set) var changed: Set<String> = []
    /// The role files to delete (no longer trusted after a key rotation).
    private(set) var dropped: Set<String> = []
    /// Whether the timestamp is newer than the one trusted before.
    private(set) var timestampChanged = false

    private var repository: String { fetch.base.absoluteString }

    init(trusted: TrustedMetadata, fetch: RepositoryFetch, now: Date) {
        self.trusted = trusted
        self.fetch = fetch
        self.now = now
        if !trusted.rootIsStored { changed.insert("root") }
    }

    // MARK: Root (§5.3)

    /// Follows `N+1.root.json` until the server has none: each link signed by a threshold of the previous root's
    /// keys and of its own, and exactly one version above it. A rotation of the timestamp or snapshot keys drops
    /// the trusted timestamp and snapshot, of the targets keys the trusted targets and bins: a version that a
    /// leaked key pushed far ahead (fast-forward) then blocks nothing.
    mutating func updateRoot() throws(DownloadError) {
        let start = trusted.root.signed
        for _ in 0..<Self.maxRootRotations {
            let next = trusted.root.signed.version + 1
            let file = "\(next).root.json"
            guard case .body(let bytes, _) = try fetch.get("metadata/\(file)", limit: Self.rootLimit) else { break }
            let document = try TrustedMetadata.parse(RootMetadata.self, bytes, role: "root", file: file, repository: repository)
            guard document.signed.version == next else {
                throw .repository(
                    document.signed.version > next ? .fastForward : .rollback, file: file, repository: repository,
                    "it holds root version \(document.signed.version); the root chain must go from \(next - 1) to \(next)")
            }
            do { try fetch.signatures.measure { () throws(MetadataError) in try document.verifyAsSuccessor(of: trusted.root.signed) } } catch {
                throw .untrusted(error, file: file, repository: repository)
            }
            trusted.root = TrustedMetadata.Document(metadata: document, bytes: bytes)
            changed.insert("root")
        }
        do { try trusted.root.signed.header.checkNotExpired(role: "root", now: now) } catch {
            throw .untrusted(error, file: "\(trusted.root.signed.version).root.json", repository: repository)
        }
        let root = trusted.root.signed
        if root.role("timestamp") != start.role("timestamp") || root.role("snapshot") != start.role("snapshot") {
            drop("timestamp")
            drop("snapshot")
            trusted.state.confirmed = [:]
        }
        if root.role("targets") != start.role("targets") {
            for name in trusted.targets.keys { drop(name) }
        }
    }

    private mutating func drop(_ name: String) {
        switch name {
        case "timestamp":
            if trusted.timestamp != nil { dropped.insert(name) }
            trusted.timestamp = nil
            trusted.state.timestampETag = nil
        case "snapshot":
            if trusted.snapshot != nil { dropped.insert(name) }
            trusted.snapshot = nil
        default:
            if trusted.targets.removeValue(forKey: name) != nil { dropped.insert(name) }
            trusted.state.confirmed[name] = nil
        }
    }

    // MARK: Timestamp (§5.4)

    /// Fetches `timestamp.json` (conditionally: a 304 keeps the trusted one), checks its signatures, that neither
    /// it nor the snapshot it names went back (rollback), and its expiry (freeze).
    mutating func updateTimestamp() throws(DownloadError) {
        let etag = trusted.timestamp == nil ? nil : trusted.state.timestampETag
        let response = try fetch.get("metadata/timestamp.json", limit: Self.timestampLimit, etag: etag)
        switch response {
        case .missing:
            throw DownloadError(code: .catalog, message: "the repository \(repository) has no metadata/timestamp.json; check the URL")
        case .notModified:
            guard trusted.timestamp != nil else {
                throw .repository(.badMetadata, file: "timestamp.json", repository: repository, "HTTP 304 to an unconditional request")
            }
        case .body(let bytes, let etag):
            let document = try TrustedMetadata.parse(TimestampMetadata.self, bytes, role: "timestamp", file: "timestamp.json", repository: repository)
            let root = trusted.root.signed
            do { try fetch.signatures.measure { () throws(MetadataError) in try document.verify(keys: root.keys, role: root.role("timestamp"), roleName: "timestamp") } } catch {
                throw .untrusted(error, file: "timestamp.json", repository: repository)
            }
            if let old = trusted.timestamp?.signed {
                guard document.signed.version >= old.version else {
                    throw .repository(
                        .rollback, file: "timestamp.json", repository: repository,
                        "it is version \(document.signed.version), older than version \(old.version) this store trusts")
                }
                guard document.signed.snapshot.version >= old.snapshot.version else {
                    throw .repository(
                        .rollback, file: "timestamp.json", repository: repository,
                        "it names snapshot version \(document.signed.snapshot.version), older than version \(old.snapshot.version) this store trusts")
                }
            }
            if document.signed.version != trusted.timestamp?.signed.version {
                trusted.timestamp = TrustedMetadata.Document(metadata: document, bytes: bytes)
                changed.insert("timestamp")
                timestampChanged = true
            }
            if trusted.state.timestampETag != etag {
                trusted.state.timestampETag = etag
                changed.insert("state")
            }
        }
        do { try trusted.timestamp!.signed.header.checkNotExpired(role: "timestamp", now: now) } catch {
            throw .untrusted(error, file: "timestamp.json", repository: repository)
        }
    }

    // MARK: Versions of targets files (§5.5, through the snapshot tree)

    /// The version the current snapshot gives targets file `name` (`targets`, a bin), read from the tree at leaf
    /// `index` when given (the leaf must name the file) or from the standard snapshot; refused when older than the
    /// version this store trusts (rollback).
    mutating func version(of name: String, leafIndex: (Int) -> Int?) throws(DownloadError) -> Int64 {
        let timestamp = trusted.timestamp!.signed
        if trusted.state.confirmed[name] == timestamp.version, let known = trusted.targets[name]?.signed.version {
            return known
        }
        let file = "\(name).json"
        let version: Int64
        if let tree = timestamp.snapshotTree, let index = leafIndex(tree.leaves) {
            version = try treeVersion(of: file, at: index, tree: tree)
        } else {
            try updateSnapshot()
            guard let meta = trusted.snapshot!.signed.meta[file] else {
                throw .repository(.badMetadata, file: "snapshot.json", repository: repository, "it does not name \(file)")
            }
            version = meta.version
        }
        if let trustedVersion = trusted.targets[name]?.signed.version, version < trustedVersion {
            throw .repository(
                .rollback, file: file, repository: repository,
                "the snapshot names version \(version), older than version \(trustedVersion) this store trusts")
        }
        trusted.state.confirmed[name] = timestamp.version
        changed.insert("state")
        return version
    }

    /// The version the snapshot tree's leaf `index` gives `file`, every node on the way checked against the hash above it.
    private func treeVersion(of file: String, at index: Int, tree: SnapshotTreeReference) throws(DownloadError) -> Int64 {
        let limit = min(Self.snapshotLimit, tree.fanout * 320 + 1024)
        var failure: DownloadError?
        let leaf: SnapshotTree.Leaf
        do throws(MetadataError) {
            leaf = try tree.leaf(at: index) { hash in
                if let known = fetch.nodes[hash] { return known }
                do {
                    guard case .body(let bytes, _) = try fetch.get("metadata/snapshot-tree/\(hash).json", limit: limit) else { return nil }
                    fetch.nodes[hash] = Array(bytes)
                    return Array(bytes)
                } catch let error as DownloadError {
                    failure = error
                    return nil
                } catch {
                    return nil
                }
            }
        } catch {
            if let failure { throw failure }
            throw .untrusted(error, file: "the snapshot tree", repository: repository)
        }
        guard leaf.name == file else {
            throw .repository(
                .badMetadata, file: "the snapshot tree", repository: repository,
                "leaf \(index) names \(leaf.name), not \(file); the tree does not hold the repository's files in order")
        }
        return leaf.version
    }

    /// The standard snapshot (a repository without a tree): fetched when the timestamp names another version than
    /// the trusted one, checked against the timestamp's length and hash, its signatures, its version (mix-and-match),
    /// that no file it names went back (rollback), and its expiry.
    private mutating func updateSnapshot() throws(DownloadError) {
        let named = trusted.timestamp!.signed.snapshot
        if let current = trusted.snapshot, current.signed.version == named.version {
            do { try current.signed.header.checkNotExpired(role: "snapshot", now: now) } catch {
                throw .untrusted(error, file: "snapshot.json", repository: repository)
            }
            return
        }
        let file = trusted.root.signed.consistentSnapshot ? "\(named.version).snapshot.json" : "snapshot.json"
        let limit = named.length.map { Int(clamping: $0) } ?? Self.snapshotLimit
        guard case .body(let bytes, _) = try fetch.get("metadata/\(file)", limit: min(limit, Self.snapshotLimit)) else {
            throw .repository(.mixAndMatch, file: file, repository: repository, "the timestamp names it but the server does not have it")
        }
        if let sha256 = named.hashes?["sha256"], Hex.string(SHA256.hash(data: bytes)) != sha256 {
            throw .repository(.mixAndMatch, file: file, repository: repository, "its SHA-256 is not the one the timestamp names")
        }
        let document = try TrustedMetadata.parse(SnapshotMetadata.self, bytes, role: "snapshot", file: file, repository: repository)
        let root = trusted.root.signed
        do { try fetch.signatures.measure { () throws(MetadataError) in try document.verify(keys: root.keys, role: root.role("snapshot"), roleName: "snapshot") } } catch {
            throw .untrusted(error, file: file, repository: repository)
        }
        guard document.signed.version == named.version else {
            throw .repository(
                .mixAndMatch, file: file, repository: repository,
                "it is snapshot version \(document.signed.version); the timestamp names version \(named.version)")
        }
        for (name, old) in trusted.snapshot?.signed.meta ?? [:] {
            guard let new = document.signed.meta[name], new.version >= old.version else {
                throw .repository(
                    .rollback, file: file, repository: repository,
                    "it names \(name) at \(document.signed.meta[name].map { "version \($0.version)" } ?? "no version"), older than version \(old.version) this store trusts")
            }
        }
        do { try document.signed.header.checkNotExpired(role: "snapshot", now: now) } catch {
            throw .untrusted(error, file: file, repository: repository)
        }
        trusted.snapshot = TrustedMetadata.Document(metadata: document, bytes: bytes)
        changed.insert("snapshot")
    }

    // MARK: Targets and bins (§5.6)

    /// Targets file `name` at `version`: the trusted one when it is that version, else fetched and checked (its
    /// signatures by `keys`/`role`, its version against the snapshot's, its expiry).
    mutating func targets(
        _ name: String, version: Int64, keys: [String: MetadataKey], role: RoleKeys
    ) throws(DownloadError) -> TargetsMetadata {
        let file = "\(name).json"
        if let current = trusted.targets[name], current.signed.version == version {
            do { try current.signed.header.checkNotExpired(role: name, now: now) } catch {
                throw .untrusted(error, file: file, repository: repository)
            }
            return current.signed
        }
        let path = trusted.root.signed.consistentSnapshot ? "\(version).\(file)" : file
        guard case .body(let bytes, _) = try fetch.get("metadata/\(path)", limit: Self.targetsLimit) else {
            throw .repository(.mixAndMatch, file: path, repository: repository, "the snapshot names version \(version) but the server does not have it")
        }
        let document = try TrustedMetadata.parse(TargetsMetadata.self, bytes, role: name, file: path, repository: repository)
        do { try fetch.signatures.measure { () throws(MetadataError) in try document.verify(keys: keys, role: role, roleName: name) } } catch {
            throw .untrusted(error, file: path, repository: repository)
        }
        guard document.signed.version == version else {
            throw .repository(
                .mixAndMatch, file: path, repository: repository,
                "it is version \(document.signed.version); the snapshot names version \(version)")
        }
        do { try document.signed.header.checkNotExpired(role: name, now: now) } catch {
            throw .untrusted(error, file: path, repository: repository)
        }
        trusted.targets[name] = TrustedMetadata.Document(metadata: document, bytes: bytes)
        changed.insert(name)
        return document.signed
    }

    /// The top-level targets of the current snapshot.
    mutating func topLevelTargets() throws(DownloadError) -> TargetsMetadata {
        // Its leaf is the last (or, for a bin prefix sorting after "targets", the first) of the tree.
        let known = trusted.targets["targets"]?.signed.delegations?.succinctRoles
        let version: Int64
        do {
            version = try self.version(of: "targets") { leaves in
                guard let known else { return leaves - 1 }
                return Self.leafIndex(of: "targets.json", bins: known, leaves: leaves)
            }
        } catch where known == nil && error.code == .badMetadata && trusted.timestamp?.signed.snapshotTree != nil {
            version = try self.version(of: "targets") { _ in 0 }
        }
        let root = trusted.root.signed
        let before = trusted.targets["targets"]?.signed.delegations
        let top = try targets("targets", version: version, keys: root.keys, role: root.role("targets"))
        if let before, before.keys != top.delegations?.keys || before.succinctRoles != top.delegations?.succinctRoles {
            // The bins' keys or layout changed: a bin a revoked key pushed ahead must not block the real one.
            for name in trusted.targets.keys where name != "targets" { drop(name) }
        }
        return top
    }

    /// The target paths of `productID` in this repository: the pair ``ProductTargetPaths`` finds for its bins' bit
    /// length (the plain paths when the top-level targets delegate to no bins).
    mutating func targetPaths(of productID: String) throws(DownloadError) -> ProductTargetPaths {
        let top = try topLevelTargets()
        return ProductTargetPaths(productID: productID, bitLength: top.delegations?.succinctRoles.bitLength ?? 0)
    }

    /// The target at `path`: listed by the top-level targets, or by the bin its hash delegates it to.
    mutating func target(_ path: String) throws(DownloadError) -> TargetFile? {
        let top = try topLevelTargets()
        if let listed = top.targets[path] { return listed }
        guard let delegations = top.delegations else { return nil }
        let bins = delegations.succinctRoles
        let name = bins.binName(for: path)
        let version = try version(of: name) { leaves in Self.leafIndex(of: "\(name).json", bins: bins, leaves: leaves) }
        return try targets(name, version: version, keys: delegations.keys, role: bins.keys).targets[path]
    }

    /// The leaf index of `file` in a tree over exactly the bins and `targets.json`, sorted by name (byte order);
    /// `nil` when the tree holds other files (the standard snapshot is read instead).
    static func leafIndex(of file: String, bins: SuccinctRoles, leaves: Int) -> Int? {
        guard leaves == bins.binCount + 1 else { return nil }
        let targetsFirst = "targets.json".utf8.lexicographicallyPrecedes("\(bins.binName(0)).json".utf8)
        if file == "targets.json" { return targetsFirst ? 0 : bins.binCount }
        guard file.hasSuffix(".json") else { return nil }
        let role = String(file.dropLast(5))
        guard bins.isBin(role), let number = Int(role.dropFirst(bins.namePrefix.count + 1), radix: 16) else { return nil }
        return number + (targetsFirst ? 1 : 0)
    }
}
