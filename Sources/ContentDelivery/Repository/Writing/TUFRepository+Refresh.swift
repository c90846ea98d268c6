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
            // Cheap first: the expiry from the file's first bytes; only a bin that is due is read whole.
            if !force, let expires = Self.expiry(inFileStart: layout.versioned(name, version)),
               expires.timeIntervalSince(now) >= lifetimes.targets / 2
            {
                continue
            }
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

    /// The `expires` of a metadata file this repository wrote, read from its first 4 KiB: in canonical JSON the
    /// signatures come first, then `signed` with `_type` and then `expires`, so a bin of any size tells its expiry
    /// without being read whole. `nil` when it is not there (the caller then reads the file).
    static func expiry(inFileStart url: URL) -> Date? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: 4096) else { return nil }
        let bytes = Array(start)
        let signed = Array(#""signed":{"_type":"targets","#.utf8)
        let key = Array(#""expires":""#.utf8)
        guard let at = bytes.firstRange(of: signed), bytes[at.upperBound...].starts(with: key) else { return nil }
        let text = bytes[(at.upperBound + key.count)...].prefix(20)
        return CatalogDate.date(from: String(decoding: text, as: UTF8.self))
    }

    /// When the newest root expires (its keys are offline, so `refresh` never re-signs it; `rotate-root` does).
    package func rootExpiry() throws(RepositoryError) -> Date {
        try RepositoryState(layout: layout).root.signed.header.expires
    }
}
