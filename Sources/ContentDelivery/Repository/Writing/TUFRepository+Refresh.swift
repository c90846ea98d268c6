package import Foundation

extension TUFRepository {
    /// Re-signs, with a new version and expiry, every online role with less than half its lifetime left (all
    /// of them with `force`): the bins and top-level targets, then the snapshot, then the timestamp. A repository
    /// with nothing near expiry is left as it is, so running it from cron every hour is safe.
    ///
    /// - Returns: The files written, in order (empty when nothing needed re-signing).
    @discardableResult
    package func refresh(signers: [any MetadataSigner], force: Bool = false) throws(RepositoryError) -> [URL] {
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        var state = try RepositoryState(layout: layout)
        func due(_ header: MetadataHeader, _ lifetime: TimeInterval) -> Bool {
            force || header.expires.timeIntervalSince(now) < lifetime / 2
        }
        var bins: [String: TargetsMetadata] = [:]
        for number in 0..<state.bins.binCount {
            let name = state.bins.binName(number)
            guard let version = state.snapshot.signed.meta["\(name).json"]?.version else { continue }
            // Cheap first: only a bin whose expiry is near is re-signed, and reading it is what tells.
            let bin = try state.bin(name).signed
            guard due(bin.header, lifetimes.targets) else { continue }
            var renewed = bin
            renewed.header = MetadataHeader(version: version + 1, expires: expiry(lifetimes.targets))
            bins[name] = renewed
        }
        var targets: TargetsMetadata?
        if due(state.targets.signed.header, lifetimes.targets) {
            var renewed = state.targets.signed
            renewed.header = MetadataHeader(version: renewed.version + 1, expires: expiry(lifetimes.targets))
            targets = renewed
        }
        let snapshotDue = due(state.snapshot.signed.header, lifetimes.snapshot)
        var written = try publish(&state, bins: bins, targets: targets, signers: signers, forceSnapshot: snapshotDue)
        if written.isEmpty, due(state.timestamp.signed.header, lifetimes.timestamp) {
            let snapshotBytes = try RepositoryFiles.read(layout.versioned("snapshot", state.snapshot.signed.version))
            written += try writeTimestamp(&state, signers: signers, snapshotBytes: snapshotBytes)
        }
        return written
    }

    /// When the newest root expires (its keys are offline, so `refresh` never re-signs it; `rotate-root` does).
    package func rootExpiry() throws(RepositoryError) -> Date {
        try RepositoryState(layout: layout).root.signed.header.expires
    }
}
