package import Foundation

extension TUFRepository {
    /// Creates the repository: root version 1 listing `rootKeys` (any `rootThreshold` of which sign roots) and the
    /// online keys for `targets`, `snapshot` and `timestamp`; top-level targets delegating to 2^`binsBitLength`
    /// empty bins signed by the online keys; the snapshot and timestamp naming them.
    ///
    /// - Parameters:
    ///   - rootSigners: The root keys; all of them sign root version 1.
    ///   - onlineSigners: The online keys (any one signs).
    /// - Returns: The files written.
    @discardableResult
    package func initialize(
        rootSigners: [any MetadataSigner], rootThreshold: Int, onlineSigners: [any MetadataSigner], binsBitLength: Int
    ) throws(RepositoryError) -> [URL] {
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        if layout.latestRootVersion() != nil { throw .alreadyInitialized(path: layout.root.path) }
        guard (1...32).contains(binsBitLength) else { throw .badBitLength(binsBitLength) }
        let rootKeys = Self.distinctKeys(rootSigners)
        let onlineKeys = Self.distinctKeys(onlineSigners)
        guard !rootKeys.isEmpty, (1...rootKeys.count).contains(rootThreshold) else {
            throw .badThreshold(role: "root", threshold: rootThreshold, keys: rootKeys.count)
        }
        guard !onlineKeys.isEmpty else { throw .noKeysLeft(role: "timestamp") }
        var keys: [String: MetadataKey] = [:]
        for key in rootKeys + onlineKeys { keys[key.keyID] = key }
        let online = RoleKeys(keyIDs: onlineKeys.map(\.keyID), threshold: 1)
        let root = RootMetadata(
            header: MetadataHeader(version: 1, expires: expiry(lifetimes.root)), consistentSnapshot: true, keys: keys,
            roles: [
                "root": RoleKeys(keyIDs: rootKeys.map(\.keyID), threshold: rootThreshold),
                "targets": online, "snapshot": online, "timestamp": online,
            ])
        var rootDocument = SignedMetadata(root)
        try Self.sign(&rootDocument, with: rootSigners)
        do { try rootDocument.verifySelf() } catch { throw .metadata(path: layout.versioned("root", 1).path, error) }

        let bins = SuccinctRoles(keys: online, bitLength: binsBitLength, namePrefix: Self.binPrefix)
        let targets = TargetsMetadata(
            header: MetadataHeader(version: 1, expires: expiry(lifetimes.targets)),
            delegations: Delegations(keys: Dictionary(uniqueKeysWithValues: onlineKeys.map { ($0.keyID, $0) }), succinctRoles: bins))

        var written = [layout.versioned("root", 1)]
        try RepositoryFiles.create(rootDocument.fileBytes, at: written[0])
        // The empty state every publish starts from: version 0 of each role, never written.
        let zero = MetadataHeader(version: 0, expires: now)
        var state = RepositoryState(
            layout: layout, root: rootDocument,
            timestamp: SignedMetadata(TimestampMetadata(header: zero, snapshot: MetaFile(version: 0))),
            snapshot: SignedMetadata(SnapshotMetadata(header: zero, meta: [:])),
            targets: SignedMetadata(targets))
        var emptyBins: [String: TargetsMetadata] = [:]
        for number in 0..<bins.binCount {
            emptyBins[bins.binName(number)] = TargetsMetadata(header: MetadataHeader(version: 1, expires: expiry(lifetimes.targets)))
        }
        written += try publish(&state, bins: emptyBins, targets: targets, signers: onlineSigners)
        return written
    }

    static func distinctKeys(_ signers: [any MetadataSigner]) -> [MetadataKey] {
        var seen: Set<String> = []
        return signers.map(\.key).filter { seen.insert($0.keyID).inserted }
    }
}
