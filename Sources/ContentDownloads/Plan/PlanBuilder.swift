internal import SystemSupport
internal import ContentPackaging
internal import Logging
internal import Foundation
import Glibc

/// The plan stage's decision for a chunk-indexed download, before any byte is written or fetched.
///
/// In order: every path of the new manifest is admitted by ``EntryPolicy`` (the rules a download's headers
/// meet), with the header regions the manifest implies; the draft says which new files are links to unchanged
/// installed files, which are written, which chunks are rebuilt from installed files and which are fetched; and
/// the space the written files need is checked (``SpacePreflight``, the one formula every download's kind uses).
/// The tree itself is built by the place stage (`TreeBuilder`) from this decision. The installed folder is only
/// read.
struct PlanBuilder {
    let package: ChunkedPackage
    /// The installed version's chunks and folder; `nil` for an install from nothing (every chunk fetched).
    let installed: (chunks: InstalledChunks, folder: InstalledFolder)?
    let treePath: String
    let archiveLength: Int64
    /// The free-space rule and the store whose file system holds the tree (either `nil`: not checked).
    var space: SpacePreflight?
    var store: Store?
    /// Whether ``admit(_:treePath:)`` already passed the package (the caller did, before reading the installed manifest).
    var admitted = false
    /// Whether a draft that fetches nothing is the point (a change made from the installed files alone,
    /// ``Planner/decideLocal(productID:selection:metadata:)``) rather than a reason to plan from nothing.
    var local = false
    /// Whether a precomputed patch made the new file at an index (``PlanDraft/patched``).
    var patched: @Sendable (Int) -> Bool = { _ in false }

    /// Why a plan from the installed version is pointless (every chunk is local): the caller plans from nothing.
    static let nothingToFetch = "every chunk the new version needs is in the installed files; nothing to fetch"

    /// What the tree will hold and what is fetched, checked: throws ``InstallError`` naming the path and the
    /// reason when the manifest is refused or the file system lacks room for the files the plan writes.
    func decide() throws(InstallError) -> ChunkPlanDecision {
        let admittedDirectories = admitted ? Self.directories(of: package.manifest) ?? [] : try Self.admit(package, treePath: treePath)
        let directories = package.selectedDirectories ?? admittedDirectories
        let draft: PlanDraft
        if let installed {
            draft = PlanDraft.make(package: package, installed: installed.chunks, usable: { file in
                installed.folder.holds(file, at: file.path)
            }, patched: patched)
        } else if let selected = package.selectedFiles {
            // From nothing, part of the package: the selected files written, the chunks holding them fetched.
            draft = PlanDraft.fromNothing(package: package, written: selected)
        } else {
            // From nothing: every file written, every chunk fetched (the headers between files are checked too).
            draft = PlanDraft(written: Array(package.files.indices), fetch: Array(package.chunks.indices))
        }
        guard local || !draft.fetch.isEmpty || !draft.local.isEmpty || !draft.patched.isEmpty else {
            throw .archiveMismatch(path: treePath, reason: Self.nothingToFetch)
        }
        let writtenBytes = (draft.written + draft.patched).reduce(Int64(0)) { $0 + package.files[$1].size }
        if let space, let store { try space.check(store: store, archiveLength: 0, uncompressedSize: writtenBytes) }
        return ChunkPlanDecision(
            package: package, installed: installed, directories: directories, draft: draft, treePath: treePath,
            archiveLength: archiveLength,
            manifestPath: store?.manifestFile(productID: package.manifest.productID, version: package.manifest.contentVersion.description).path,
            selectionsDirectory: store?.selectionsDirectory,
            patchedDirectory: store?.patchedDirectory(productID: package.manifest.productID, version: package.manifest.contentVersion.description))
    }

    /// The manifest's folders, its header regions, and every path through the same rules as a download's headers
    /// (layout, names, collisions, caps); returns the folders to make. On its own, so that a caller can run it
    /// before it reads the installed version's manifest: with a hundred thousand files, the paths remembered for
    /// the collision check and two decoded manifests would otherwise be held at once.
    static func admit(_ package: ChunkedPackage, treePath: String) throws(InstallError) -> [String] {
        guard let directories = PlanBuilder.directories(of: package.manifest) else {
            throw .archiveMismatch(path: treePath, reason: "the manifest does not list the package's empty folders")
        }
        if let problem = HeaderRegions.problems(in: package).first {
            throw .archiveMismatch(path: "the signed package manifest", reason: "\(problem); the publisher must pack and publish it again")
        }
        var policy = EntryPolicy(
            limits: InstallLimits(maxTotalBytes: package.manifest.uncompressedSize, maxEntries: InstallLimits.maxEntriesCap),
            keepsPlan: false, expectedEntries: directories.count + package.files.count)
        for directory in directories {
            _ = try policy.admit(ArchiveEntryHeader(path: directory, kind: .directory, size: 0, permissions: 0o755))
        }
        for file in package.files {
            _ = try policy.admit(
                ArchiveEntryHeader(storedPath: file.storedPath, kind: .regular, size: file.size, permissions: 0o644))
        }
        return directories
    }

    /// The folders of the package: the manifest's list when it has one, else every parent of a file — `nil`
    /// when the archive holds folders no file is in (the manifest cannot say which).
    static func directories(of manifest: PackageManifest) -> [String]? {
        if let listed = manifest.directories { return listed }
        var parents = Set<String>()
        for file in manifest.files {
            var components = file.path.split(separator: "/").dropLast()
            while !components.isEmpty {
                parents.insert(components.joined(separator: "/"))
                components = components.dropLast()
            }
        }
        guard parents.count + manifest.files.count == manifest.entryCount else { return nil }
        return parents.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
