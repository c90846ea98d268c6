package import Foundation

/// What a copy of a repository (a bucket `iapcontent publish` filled) lacks to serve the local repository's current
/// timestamp, in the order it must be sent: the targets, then the versioned metadata (bins, top-level targets,
/// snapshot, snapshot-tree nodes), the root chain, and `timestamp.json` last, which makes them all current at once.
package struct RepositoryUpload: Sendable {
    /// One file to send: its key relative to the repository folder, the local file, its length and (for a target)
    /// the SHA-256 its name promises.
    package struct File: Sendable, Equatable {
        package var name: String
        package var url: URL
        package var length: Int64
        package var sha256: String?
    }

    /// Targets the new bins list and the copy's bins did not, and the patches their entries name (content-addressed,
    /// never rewritten).
    package var targets: [File]
    /// Versioned metadata the copy's timestamp does not reach: created once, never replaced.
    package var metadata: [File]
    /// Every root version, newest first: the sender stops at the first one the copy holds.
    package var roots: [File]
    /// The local `timestamp.json`.
    package var timestamp: Data
    /// Its version.
    package var timestampVersion: Int64
    /// Whether the copy already serves this timestamp.
    package var alreadyLive: Bool
}

extension TUFRepository {
    /// What a copy whose `timestamp.json` is `live` (`nil`: an empty copy) lacks. When this folder holds the
    /// snapshot that timestamp names, only what changed since is listed: the bins (and targets) whose version
    /// moved, their new targets, the new snapshot and the tree nodes the copy's tree lacks. Otherwise every file.
    ///
    /// - Throws: ``RepositoryError`` when the folder is not a repository, or when `live` is newer than the local
    ///   timestamp (another publisher got there first).
    package func upload(since live: Data?) throws(RepositoryError) -> RepositoryUpload {
        let state = try RepositoryState(layout: layout)
        let local = state.timestamp.signed
        let timestampBytes = try RepositoryFiles.read(layout.timestamp)
        let roots = (1...state.root.signed.version).reversed().map { file(layout.versioned("root", $0)) }
        var upload = RepositoryUpload(
            targets: [], metadata: [], roots: roots, timestamp: timestampBytes, timestampVersion: local.version, alreadyLive: false)
        let copy: TimestampMetadata?
        if let live {
            do { copy = try SignedMetadata<TimestampMetadata>(parsing: live, roleName: "timestamp").signed } catch {
                throw .metadata(path: "the copy's metadata/timestamp.json", error)
            }
        } else {
            copy = nil
        }
        if let copy, copy.version > local.version {
            throw .staleCopy(local: local.version, live: copy.version)
        }
        if let copy, copy.version == local.version {
            upload.alreadyLive = true
            return upload
        }
        guard let copy, let old = try? RepositoryState.load(layout.versioned("snapshot", copy.snapshot.version), role: "snapshot")
            as SignedMetadata<SnapshotMetadata>
        else {
            try everything(into: &upload)
            return upload
        }
        let oldMeta = old.signed.meta
        let newMeta = state.snapshot.signed.meta
        for name in newMeta.keys.sorted() where newMeta[name]!.version != oldMeta[name]?.version {
            let role = String(name.dropLast(".json".count))
            let url = layout.versioned(role, newMeta[name]!.version)
            let document: SignedMetadata<TargetsMetadata> = try RepositoryState.load(url, role: role)
            let before: [String: TargetFile] = oldMeta[name].flatMap {
                try? (RepositoryState.load(layout.versioned(role, $0.version), role: role) as SignedMetadata<TargetsMetadata>).signed.targets
            } ?? [:]
            for (path, target) in document.signed.targets.sorted(by: { $0.key < $1.key }) where before[path] != target {
                let url = layout.target(path, sha256: target.sha256)
                upload.targets.append(RepositoryUpload.File(name: relative(url), url: url, length: target.length, sha256: target.sha256))
                for patch in ProductTargets.product(in: target)?.patches ?? [] {
                    let url = layout.targets.appendingPathComponent(patch.path)
                    upload.targets.append(RepositoryUpload.File(name: relative(url), url: url, length: patch.length, sha256: patch.sha256))
                }
            }
            upload.metadata.append(file(url))
        }
        if state.snapshot.signed.version != copy.snapshot.version {
            upload.metadata.append(file(layout.versioned("snapshot", state.snapshot.signed.version)))
        }
        let oldNodes = Set(SnapshotTree(meta: oldMeta).nodes.keys)
        for hash in SnapshotTree(meta: newMeta).nodes.keys.sorted() where !oldNodes.contains(hash) {
            upload.metadata.append(file(layout.snapshotTreeNode(hash)))
        }
        return upload
    }

    /// Every target and every metadata file but `timestamp.json` and the roots.
    private func everything(into upload: inout RepositoryUpload) throws(RepositoryError) {
        for (folder, isTarget) in [(layout.targets, true), (layout.metadata, false)] {
            let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            var files: [URL] = []
            while let url = walker?.nextObject() as? URL {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                      !url.lastPathComponent.hasPrefix("."), url.lastPathComponent != "timestamp.json",
                      !url.lastPathComponent.hasSuffix(".root.json")
                else { continue }
                files.append(url)
            }
            for url in files.sorted(by: { $0.path < $1.path }) {
                var entry = file(url)
                if isTarget { entry.sha256 = url.lastPathComponent.split(separator: ".").first.map(String.init) }
                if isTarget { upload.targets.append(entry) } else { upload.metadata.append(entry) }
            }
        }
    }

    private func file(_ url: URL) -> RepositoryUpload.File {
        let length = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int64 ?? 0
        return RepositoryUpload.File(name: relative(url), url: url, length: length, sha256: nil)
    }

    private func relative(_ url: URL) -> String {
        let base = layout.root.standardizedFileURL.path + "/"
        return url.standardizedFileURL.path.replacingOccurrences(of: base, with: "")
    }
}
