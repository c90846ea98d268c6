package import Foundation

extension TUFRepository {
    /// Writes root version N+1 from the newest root N with `change` applied and a fresh expiry, signed by
    /// `signers`: it must carry a threshold of root N's root keys and a threshold of its own, as clients require
    /// of each link of the chain.
    ///
    /// - Returns: The new root's file.
    @discardableResult
    func writeNextRoot(
        _ state: inout RepositoryState, signers: [any MetadataSigner], change: (inout RootMetadata) throws(RepositoryError) -> Void
    ) throws(RepositoryError) -> URL {
        let old = state.root.signed
        var next = old
        try change(&next)
        next.header = MetadataHeader(version: old.version + 1, expires: expiry(lifetimes.root))
        for (name, role) in next.roles {
            guard !role.keyIDs.isEmpty else { throw .noKeysLeft(role: name) }
            guard (1...role.keyIDs.count).contains(role.threshold) else {
                throw .badThreshold(role: name, threshold: role.threshold, keys: role.keyIDs.count)
            }
        }
        // Keys no role lists any more leave the root.
        let used = Set(next.roles.values.flatMap(\.keyIDs))
        next.keys = next.keys.filter { used.contains($0.key) }
        let oldSigners = try Self.signers(for: old.role("root"), named: "root (version \(old.version))", from: signers)
        let newSigners = try Self.signers(for: next.role("root"), named: "root (version \(next.version))", from: signers)
        var document = SignedMetadata(next)
        var all: [any MetadataSigner] = []
        var seen: Set<String> = []
        for signer in oldSigners + newSigners where seen.insert(signer.key.keyID).inserted { all.append(signer) }
        try Self.sign(&document, with: all)
        let url = layout.versioned("root", next.version)
        do { try document.verifyAsSuccessor(of: old) } catch { throw .metadata(path: url.path, error) }
        try RepositoryFiles.create(document.fileBytes, at: url)
        state.root = document
        return url
    }

    /// Rotates the root keys: root N+1 lists `newRootKeys` with `newThreshold`, signed by a threshold of the
    /// current root keys and of the new ones (`signers` holds both).
    @discardableResult
    package func rotateRoot(
        signers: [any MetadataSigner], newRootKeys: [MetadataKey], newThreshold: Int
    ) throws(RepositoryError) -> URL {
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        var state = try RepositoryState(layout: layout)
        return try writeNextRoot(&state, signers: signers) { (root: inout RootMetadata) throws(RepositoryError) in
            guard !newRootKeys.isEmpty, (1...newRootKeys.count).contains(newThreshold) else {
                throw .badThreshold(role: "root", threshold: newThreshold, keys: newRootKeys.count)
            }
            for key in newRootKeys { root.keys[key.keyID] = key }
            root.roles["root"] = RoleKeys(keyIDs: newRootKeys.map(\.keyID), threshold: newThreshold)
        }
    }

    /// The online roles whose keys `changeKeys` manages.
    package static let onlineRoles = ["targets", "snapshot", "timestamp", "bins"]

    /// Adds `add` to and removes the key IDs `revoke` from online role `role` (`targets`, `snapshot`,
    /// `timestamp`: a new root signed by `rootSigners`; `bins`: new top-level targets), then re-signs what the
    /// change affects with `onlineSigners` (keys of the new role): after a revocation, every document the revoked
    /// key signed, so no client needs it again.
    ///
    /// - Returns: The files written, in order.
    @discardableResult
    package func changeKeys(
        role: String, add: [MetadataKey], revoke: [String], rootSigners: [any MetadataSigner],
        onlineSigners: [any MetadataSigner]
    ) throws(RepositoryError) -> [URL] {
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        var state = try RepositoryState(layout: layout)
        var written: [URL] = []
        func apply(_ keys: inout RoleKeys) throws(RepositoryError) {
            for key in add where !keys.keyIDs.contains(key.keyID) { keys.keyIDs.append(key.keyID) }
            keys.keyIDs.removeAll { revoke.contains($0) }
            guard !keys.keyIDs.isEmpty else { throw .noKeysLeft(role: role) }
            keys.threshold = min(keys.threshold, keys.keyIDs.count)
        }
        var bins: [String: TargetsMetadata] = [:]
        var targets: TargetsMetadata?
        if role == "bins" {
            var next = state.targets.signed
            var delegations = next.delegations!
            try apply(&delegations.succinctRoles.keys)
            for key in add { delegations.keys[key.keyID] = key }
            delegations.keys = delegations.keys.filter { delegations.succinctRoles.keys.keyIDs.contains($0.key) }
            next.delegations = delegations
            next.header = MetadataHeader(version: next.version + 1, expires: expiry(lifetimes.targets))
            targets = next
            state.targets = SignedMetadata(next)
            if !revoke.isEmpty {
                for number in 0..<delegations.succinctRoles.binCount {
                    let name = delegations.succinctRoles.binName(number)
                    guard let version = state.snapshot.signed.meta["\(name).json"]?.version else { continue }
                    let url = layout.versioned(name, version)
                    let old: SignedMetadata<TargetsMetadata> = try RepositoryState.load(url, role: name)
                    var bin = old.signed
                    bin.header = MetadataHeader(version: version + 1, expires: expiry(lifetimes.targets))
                    bins[name] = bin
                }
            }
        } else {
            guard ["targets", "snapshot", "timestamp"].contains(role) else { throw .unknownRole(role) }
            written.append(
                try writeNextRoot(&state, signers: rootSigners) { (root: inout RootMetadata) throws(RepositoryError) in
                    var keys = root.role(role)
                    try apply(&keys)
                    for key in add { root.keys[key.keyID] = key }
                    root.roles[role] = keys
                })
            if role == "targets" {
                var next = state.targets.signed
                next.header = MetadataHeader(version: next.version + 1, expires: expiry(lifetimes.targets))
                targets = next
            }
        }
        // A new snapshot and timestamp always: signed by the new keys, they stop clients from needing the old.
        written += try publish(&state, bins: bins, targets: targets, signers: onlineSigners, forceSnapshot: true)
        return written
    }
}
