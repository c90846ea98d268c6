import Crypto
package import Foundation

/// A TUF repository on disk, and the commands that change it (`iapcontent repo …`).
///
/// Keys: `root` is k-of-n offline keys; one or more online keys sign `targets`, the bins, `snapshot` and
/// `timestamp`. Signing goes through ``MetadataSigner`` so a hardware key can replace a key file.
/// Every change writes in the order a reader stays consistent — target files, bins, top-level targets,
/// snapshot, timestamp — each versioned file created (never replaced), `timestamp.json` replaced last.
package struct TUFRepository: Sendable {
    /// Where its files are.
    package let layout: RepositoryLayout
    /// The clock (injected by tests).
    package var now: Date
    /// How long each role stays valid.
    package var lifetimes: RoleLifetimes

    /// The repository in `directory`.
    package init(directory: URL, now: Date = Date(), lifetimes: RoleLifetimes = RoleLifetimes()) {
        layout = RepositoryLayout(root: directory)
        self.now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        self.lifetimes = lifetimes
    }

    /// The name prefix of the bins.
    package static let binPrefix = "bins"

    func expiry(_ lifetime: TimeInterval) -> Date { now.addingTimeInterval(lifetime) }

    /// The signers among `signers` that hold keys of `role`; at least its threshold of them.
    static func signers(
        for role: RoleKeys, named roleName: String, from signers: [any MetadataSigner]
    ) throws(RepositoryError) -> [any MetadataSigner] {
        var seen: Set<String> = []
        let chosen = signers.filter { role.keyIDs.contains($0.key.keyID) && seen.insert($0.key.keyID).inserted }
        guard chosen.count >= role.threshold else {
            throw .notEnoughKeys(
                role: roleName, given: signers.map(\.key.keyID), roleKeys: role.keyIDs, threshold: role.threshold)
        }
        return chosen
    }

    static func sign<Role>(_ document: inout SignedMetadata<Role>, with signers: [any MetadataSigner]) throws(RepositoryError) {
        document.signatures = []
        for signer in signers {
            do { try document.sign(with: signer) } catch {
                throw .signingFailed(keyID: signer.key.keyID, detail: "\(error)")
            }
        }
    }

    /// Writes the bins and top-level targets given (signed here), then a new snapshot naming them and a new
    /// timestamp naming that snapshot; returns the files written, in order.
    @discardableResult
    func publish(
        _ state: inout RepositoryState, bins: [String: TargetsMetadata], targets: TargetsMetadata?,
        signers: [any MetadataSigner], forceSnapshot: Bool = false, writtenBins: [String: Int64] = [:]
    ) throws(RepositoryError) -> [URL] {
        var written: [URL] = []
        var meta = state.snapshot.signed.meta
        for (name, version) in writtenBins { meta["\(name).json"] = MetaFile(version: version) }
        if !bins.isEmpty {
            let binSigners = try Self.signers(for: state.bins.keys, named: "bins", from: signers)
            for name in bins.keys.sorted() {
                let (url, version) = try writeBin(name, bins[name]!, signers: binSigners)
                meta["\(name).json"] = MetaFile(version: version)
                written.append(url)
            }
        }
        if var targets {
            targets.header.version = freeVersion("targets", from: targets.version)
            var document = SignedMetadata(targets)
            try Self.sign(&document, with: Self.signers(for: state.root.signed.role("targets"), named: "targets", from: signers))
            let url = layout.versioned("targets", targets.version)
            try RepositoryFiles.create(document.fileBytes, at: url, durable: false)
            meta["targets.json"] = MetaFile(version: targets.version)
            state.targets = document
            written.append(url)
        }
        guard !written.isEmpty || forceSnapshot else { return written }
        var snapshot = SignedMetadata(
            SnapshotMetadata(
                header: MetadataHeader(
                    version: freeVersion("snapshot", from: state.snapshot.signed.version + 1), expires: expiry(lifetimes.snapshot)),
                meta: meta))
        try Self.sign(&snapshot, with: Self.signers(for: state.root.signed.role("snapshot"), named: "snapshot", from: signers))
        let snapshotURL = layout.versioned("snapshot", snapshot.signed.version)
        let snapshotBytes = snapshot.fileBytes
        try RepositoryFiles.create(snapshotBytes, at: snapshotURL, durable: false)
        state.snapshot = snapshot
        written.append(snapshotURL)
        written += try writeTimestamp(&state, signers: signers, snapshotBytes: snapshotBytes)
        return written
    }

    /// Signs bin `name` (at its version, or the first free one above) with `signers` and creates its file, not yet
    /// durable (the publish's `syncfs` makes it so before the timestamp); returns the file and the version written.
    func writeBin(_ name: String, _ bin: TargetsMetadata, signers: [any MetadataSigner]) throws(RepositoryError) -> (URL, Int64) {
        var bin = bin
        bin.header.version = freeVersion(name, from: bin.version)
        var document = SignedMetadata(bin)
        try Self.sign(&document, with: signers)
        let url = layout.versioned(name, document.signed.version)
        try RepositoryFiles.create(document.fileBytes, at: url, durable: false)
        return (url, document.signed.version)
    }

    /// `version`, or the first version above it no file of `role` has yet: a command that stopped between writing a
    /// versioned file and the timestamp that would name it leaves that file behind, unnamed; the next command
    /// writes past it (under the repository's lock, so no other publisher is writing it).
    func freeVersion(_ role: String, from version: Int64) -> Int64 {
        var version = version
        while FileManager.default.fileExists(atPath: layout.versioned(role, version).path) { version += 1 }
        return version
    }

    /// Writes the nodes of the current snapshot's tree that are not there yet, then signs and writes a new
    /// `timestamp.json` naming the snapshot (`snapshotBytes`: its file) and the tree's root; returns the files
    /// written.
    func writeTimestamp(_ state: inout RepositoryState, signers: [any MetadataSigner], snapshotBytes: Data) throws(RepositoryError) -> [URL] {
        var written: [URL] = []
        let tree = SnapshotTree(meta: state.snapshot.signed.meta)
        for (hash, bytes) in tree.nodes.sorted(by: { $0.key < $1.key }) {
            let url = layout.snapshotTreeNode(hash)
            guard !FileManager.default.fileExists(atPath: url.path) else { continue }
            do { try RepositoryFiles.create(Data(bytes), at: url, durable: false) } catch .alreadyExists { continue }  // same name, same bytes
            written.append(url)
        }
        // Targets, bins, the snapshot and these nodes were written without an fsync each: one syncfs makes them all
        // durable before the timestamp names them.
        try RepositoryFiles.syncFileSystem(layout.root)
        let snapshotFile = MetaFile(
            version: state.snapshot.signed.version, length: Int64(snapshotBytes.count),
            hashes: ["sha256": Hex.string(SHA256.hash(data: snapshotBytes))])
        var timestamp = SignedMetadata(
            TimestampMetadata(
                header: MetadataHeader(version: state.timestamp.signed.version + 1, expires: expiry(lifetimes.timestamp)),
                snapshot: snapshotFile, snapshotTree: tree.reference))
        try Self.sign(&timestamp, with: Self.signers(for: state.root.signed.role("timestamp"), named: "timestamp", from: signers))
        try RepositoryFiles.replaceChangingValidator(timestamp.fileBytes, at: layout.timestamp)
        state.timestamp = timestamp
        return written + [layout.timestamp]
    }
}
