package import ContentPackaging

/// What an update from one version to another costs a client whose installed files are intact, from the two
/// manifests alone — the publisher's report before a catalog ships (`iapcontent diff`, `iapcontent catalog`).
///
/// The same decision as a client's update (``PlanDraft``): unchanged files (renamed ones too) are linked,
/// chunks the old version's files held are rebuilt, the rest is fetched by range from the static archive.
package struct UpdateSize: Codable, Sendable, Equatable {
    /// The version installed, and the one offered.
    package var fromVersion: String
    package var toVersion: String
    /// Bytes of the new archive a client fetches (its manifest comes on top, `manifestBytes`): the chunks, and the
    /// stored dictionary of an archive packed with one when any chunk is fetched.
    package var fetchBytes: Int64
    /// Chunks fetched, and in all.
    package var fetchChunks: Int
    package var chunks: Int
    /// The new archive's size: what a full download fetches.
    package var archiveBytes: Int64
    /// Files linked from the installed version, and files written.
    package var linkedFiles: Int
    package var writtenFiles: Int
    /// Chunks rebuilt from installed files.
    package var rebuiltChunks: Int
    /// For a product with packs: what a device holding each pack (each variant) fetches of this update.
    package var packs: [PackSizeReport.Line]?

    /// The update from `installed` to `offered` (both schema 2).
    /// - Throws: ``InstallError`` when either manifest has no sound chunk index.
    package static func between(installed: PackageManifest, offered: PackageManifest) throws(InstallError) -> UpdateSize {
        for manifest in [installed, offered] where manifest.chunks == nil {
            throw .archiveMismatch(
                path: manifest.archiveName, reason: "has no chunk index (a one-frame archive): a client downloads the whole archive")
        }
        let package = try ChunkedPackage(
            manifest: offered, expectedLength: offered.archiveSize, expectedSHA256: offered.archiveSHA256 ?? "", display: offered.archiveName)
        if let problem = installed.chunkIndexProblems().first {
            throw .archiveMismatch(path: installed.archiveName, reason: "the chunk index is wrong: \(problem)")
        }
        let draft = PlanDraft.make(package: package, installed: InstalledChunks(manifest: installed)) { _ in true }
        return UpdateSize(
            fromVersion: installed.contentVersion.description, toVersion: offered.contentVersion.description,
            fetchBytes: draft.fetchBytes(in: package) + (draft.fetch.isEmpty ? 0 : offered.dictionary?.length ?? 0), fetchChunks: draft.fetch.count, chunks: package.chunks.count,
            archiveBytes: offered.archiveSize, linkedFiles: draft.links.count, writtenFiles: draft.written.count,
            rebuiltChunks: draft.local.count,
            packs: offered.packs == nil ? nil : PackSizeReport(manifest: offered, counting: Set(draft.fetch)).lines)
    }

    /// The fetched share of a full download, in percent.
    package var percentOfArchive: Double { archiveBytes > 0 ? 100 * Double(fetchBytes) / Double(archiveBytes) : 0 }
}
