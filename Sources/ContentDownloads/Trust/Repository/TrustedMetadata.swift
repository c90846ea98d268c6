internal import ContentDelivery
internal import Foundation
internal import SystemSupport

/// The metadata a store trusts for one repository, kept in `<store>/trust/<repository id>/`: `root.json`,
/// `timestamp.json`, `snapshot.json` (only for a repository without a snapshot tree), `targets.json` and each bin
/// this store used (`<bin>.json`), exactly as fetched, and `state.json` (the timestamp's ETag, and the timestamp
/// version at which each targets file was last confirmed current).
///
/// An update works on a copy and ``save(changed:)`` writes it only after every check passed: a refused update
/// changes nothing here. Each file is written to a temporary file, fsynced and renamed, `state.json` last, so a
/// crash leaves files that each verified.
struct TrustedMetadata {
    /// A document and the bytes it was read from.
    struct Document<Role: RoleMetadata> {
        var metadata: SignedMetadata<Role>
        var bytes: Data
        var signed: Role { metadata.signed }
    }

    /// What `state.json` holds.
    struct State: Codable, Equatable {
        /// The ETag of the trusted `timestamp.json`.
        var timestampETag: String?
        /// Role name → the trusted timestamp's version when the role's version was last read from the snapshot.
        var confirmed: [String: Int64] = [:]
    }

    /// The folder.
    let folder: URL
    var root: Document<RootMetadata>
    var timestamp: Document<TimestampMetadata>?
    var snapshot: Document<SnapshotMetadata>?
    /// `targets` and every bin used, by role name.
    var targets: [String: Document<TargetsMetadata>] = [:]
    var state = State()
    /// Whether ``root`` was read from the folder (else it is the shipped root, not yet written there).
    private(set) var rootIsStored = false

    /// The trusted metadata in `folder`, starting from `shippedRoot` (the root the app ships) when the folder holds
    /// no root or an older one. A stored file that no longer verifies against the root (its role's keys changed) is
    /// left out, as a client that never had it.
    init(folder: URL, shippedRoot: Data, repository: String, timer: SignatureTimer) throws(DownloadError) {
        self.folder = folder
        let shipped = try Self.parse(RootMetadata.self, shippedRoot, role: "root", file: "the trusted root", repository: repository)
        do { try timer.measure { () throws(MetadataError) in try shipped.verifySelf() } } catch { throw .untrusted(error, file: "the trusted root", repository: repository) }
        root = Document(metadata: shipped, bytes: shippedRoot)
        if let bytes = read("root"),
           let stored = try? SignedMetadata<RootMetadata>(parsing: bytes, roleName: "root"),
           (try? timer.measure { () throws(MetadataError) in try stored.verifySelf() }) != nil, stored.signed.version >= shipped.signed.version
        {
            root = Document(metadata: stored, bytes: bytes)
            rootIsStored = true
        }
        if let bytes = read("timestamp"), let document = try? SignedMetadata<TimestampMetadata>(parsing: bytes, roleName: "timestamp"),
           (try? timer.measure { () throws(MetadataError) in try document.verify(keys: root.signed.keys, role: root.signed.role("timestamp"), roleName: "timestamp") }) != nil
        {
            timestamp = Document(metadata: document, bytes: bytes)
        }
        if let bytes = read("snapshot"), let document = try? SignedMetadata<SnapshotMetadata>(parsing: bytes, roleName: "snapshot"),
           (try? timer.measure { () throws(MetadataError) in try document.verify(keys: root.signed.keys, role: root.signed.role("snapshot"), roleName: "snapshot") }) != nil
        {
            snapshot = Document(metadata: document, bytes: bytes)
        }
        if let bytes = read("targets"), let document = try? SignedMetadata<TargetsMetadata>(parsing: bytes, roleName: "targets"),
           (try? timer.measure { () throws(MetadataError) in try document.verify(keys: root.signed.keys, role: root.signed.role("targets"), roleName: "targets") }) != nil
        {
            targets["targets"] = Document(metadata: document, bytes: bytes)
            if let delegations = document.signed.delegations {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names where name.hasSuffix(".json") {
                    let role = String(name.dropLast(5))
                    guard delegations.succinctRoles.isBin(role), let bytes = read(role),
                          let bin = try? SignedMetadata<TargetsMetadata>(parsing: bytes, roleName: role),
                          (try? timer.measure { () throws(MetadataError) in try bin.verify(keys: delegations.keys, role: delegations.succinctRoles.keys, roleName: role) }) != nil
                    else { continue }
                    targets[role] = Document(metadata: bin, bytes: bytes)
                }
            }
        }
        if let bytes = read("state"), let decoded = try? JSONDecoder().decode(State.self, from: bytes) {
            state = decoded
        }
        if timestamp == nil { state.timestampETag = nil }
    }

    /// A document of `Role` parsed from `bytes`, or a `.badMetadata` refusal naming `file`.
    static func parse<Role: RoleMetadata>(
        _ type: Role.Type, _ bytes: Data, role: String, file: String, repository: String
    ) throws(DownloadError) -> SignedMetadata<Role> {
        do { return try SignedMetadata<Role>(parsing: bytes, roleName: role) } catch {
            throw .untrusted(error, file: file, repository: repository)
        }
    }

    /// `<folder>/<name>.json`, when present as a regular file no larger than a client reads for any role; anything
    /// else is left out, as a file never trusted.
    private func read(_ name: String) -> Data? {
        try? CatalogSource.read(
            folder.appendingPathComponent("\(name).json"), transport: TransferSettings(), what: "trusted metadata", allowMissing: true,
            limit: RepositoryUpdate.targetsLimit)
    }

    /// Writes the documents named in `changed` (`root`, `timestamp`, `snapshot`, `targets`, a bin), removes those
    /// no longer trusted, then `state.json`; each durably (temporary file, fsync, rename, fsync of the folder).
    func save(changed: Set<String>, dropped: Set<String>, store: Store) throws(DownloadError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(code: .io, message: "cannot create \(folder.path): \(error); check permissions")
        }
        for name in changed.sorted() {
            let bytes: Data? = switch name {
            case "root": root.bytes
            case "timestamp": timestamp?.bytes
            case "snapshot": snapshot?.bytes
            default: targets[name]?.bytes
            }
            guard let bytes else { continue }
            try write(bytes, name)
        }
        for name in dropped.subtracting(changed) { store.discardTrustedMetadata(name, in: folder) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let stateBytes = try? encoder.encode(state) else { return }
        try write(stateBytes, "state")
    }

    private func write(_ bytes: Data, _ name: String) throws(DownloadError) {
        let url = folder.appendingPathComponent("\(name).json")
        do { try DurableFile.write(bytes, to: url) } catch {
            throw DownloadError(code: .io, message: "cannot write the trusted metadata \(url.path): \(error); check permissions and free space")
        }
    }
}
