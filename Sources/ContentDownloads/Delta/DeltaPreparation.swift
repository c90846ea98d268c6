internal import SystemSupport
internal import ContentPackaging
internal import Logging
internal import Foundation
import Glibc

/// The local half of an update, on a thread of its own before any byte is fetched: it builds the new
/// version's tree in `transfers/<product>.tree` from what is installed, and keeps the plan for the rest.
///
/// In order: every path of the new manifest is admitted by ``EntryPolicy`` (the rules a download's headers
/// meet); folders are made; unchanged files become links to the installed ones; every other file is created
/// at its full size; each chunk the installed files hold is rebuilt, checked against the new signed chunk
/// index and written where the new manifest says (a chunk that does not match is fetched instead); the tree is
/// made durable; and only then is the plan written, durably. The installed folder is only read.
struct DeltaPreparation {
    let package: ChunkedPackage
    /// The installed version's chunks and folder; `nil` for an install from nothing (every chunk fetched).
    let installed: (chunks: InstalledChunks, folder: InstalledFolder)?
    let treePath: String
    let archiveLength: Int64
    /// Whether ``admit(_:)`` already passed the package (the caller did, before reading the installed manifest).
    var admitted = false

    /// Why a plan from the installed version is pointless (every chunk is local): the caller plans from nothing.
    static let nothingToFetch = "every chunk the new version needs is in the installed files; nothing to fetch"

    /// Builds the tree and keeps the plan; throws ``InstallError`` naming the path and the reason when the
    /// manifest is refused (before any archive byte is requested) or the tree cannot be built.
    func run() throws(InstallError) -> DeltaPlan {
        let directories = admitted ? Self.directories(of: package.manifest) ?? [] : try Self.admit(package, treePath: treePath)
        var draft: DeltaDraft
        if let installed {
            draft = DeltaDraft.make(package: package, installed: installed.chunks) { file in
                installed.folder.holds(file, at: file.path)
            }
        } else {
            // From nothing: every file written, every chunk fetched (the headers between files are checked too).
            draft = DeltaDraft(written: Array(package.files.indices), fetch: Array(package.chunks.indices))
        }
        guard !draft.fetch.isEmpty || !draft.local.isEmpty else {
            throw .archiveMismatch(path: treePath, reason: Self.nothingToFetch)
        }
        let needed = draft.written.reduce(Int64(0)) { $0 + package.files[$1].size } + DeltaPreparation.margin
        let available = FileSystemCalls.availableBytes((treePath as NSString).deletingLastPathComponent)
        guard available >= needed else { throw .insufficientSpace(needed: needed, available: available) }
        DeltaPlan.remove(treePath: treePath)
        let tree = try StagingTree(path: treePath, wipe: true, expectedBytes: package.manifest.uncompressedSize)
        for directory in directories { try tree.makeDirectory(directory) }
        for link in draft.links {
            guard let (chunks, folder) = installed else { break }
            let installedPath = chunks.manifest.files[link.installedFile].path
            let made: Void? = try folder.withParent(of: installedPath) { parent, name throws(InstallError) in
                try tree.link(name, in: parent, as: package.files[link.file].path)
            }
            guard made != nil else { throw .system(operation: "link", path: folder.path + "/" + installedPath, errno: ENOENT) }
        }
        let placement = ChunkPlacement(package: package, written: draft.written, tree: tree)
        for index in draft.written {
            let file = package.files[index]
            try tree.create(file.path, size: file.size)
        }
        let missed = try rebuild(draft.local, into: placement)
        CrashHook.reach(.prepare)
        try placement.release()
        try tree.sync()
        draft.fetch = (draft.fetch + missed).sorted()
        guard !draft.fetch.isEmpty else { throw .archiveMismatch(path: treePath, reason: Self.nothingToFetch) }
        let plan = DeltaPlan(
            contentVersion: package.manifest.contentVersion.description, archiveLength: archiveLength,
            written: draft.written, fetch: draft.fetch, fetchBytes: draft.fetchBytes(in: package),
            linkedFiles: draft.links.count, rebuiltChunks: draft.local.count - missed.count,
            rebuiltBytes: draft.local.filter { !missed.contains($0.chunk) }.reduce(0) { $0 + $1.source.length })
        do { try plan.keep(treePath: treePath) } catch {
            throw .system(operation: error.operation, path: error.path, errno: error.errno)
        }
        return plan
    }

    /// Space kept free beyond the files an update writes (linked files take none).
    static let margin: Int64 = 64 << 20

    /// The manifest's folders, its header regions, and every path through the same rules as a download's headers
    /// (layout, names, collisions, caps); returns the folders to make. On its own, so that a caller can run it
    /// before it reads the installed version's manifest: with a hundred thousand files, the paths remembered for
    /// the collision check and two decoded manifests would otherwise be held at once.
    static func admit(_ package: ChunkedPackage, treePath: String) throws(InstallError) -> [String] {
        guard let directories = DeltaPreparation.directories(of: package.manifest) else {
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

    /// Rebuilds each chunk from the installed files and writes it when it matches its signed hash; returns
    /// the chunks that did not (to fetch).
    private func rebuild(_ chunks: [DeltaDraft.LocalChunk], into placement: ChunkPlacement) throws(InstallError) -> [Int] {
        guard !chunks.isEmpty, let folder = installed?.folder else { return [] }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: package.largestChunk, alignment: 4096)
        defer { buffer.deallocate() }
        var missed: [Int] = []
        for local in chunks {
            let chunk = package.chunks[local.chunk], source = local.source
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(chunk.uncompressedLength)])
            guard folder.read(source.path, at: source.fileOffset, count: Int(source.dataLength), into: bytes) else {
                missed.append(local.chunk)
                continue
            }
            if source.dataLength < source.length {
                UnsafeMutableRawBufferPointer(rebasing: bytes[Int(source.dataLength)...]).initializeMemory(as: UInt8.self, repeating: 0)
            }
            let digest = placement.digest(chunk: local.chunk, bytes: UnsafeRawBufferPointer(bytes))
            guard digest.sha256 == chunk.sha256.lowercased() else {
                DownloadLog.transfer.notice(
                    "an installed file no longer holds a chunk it held; fetching it",
                    metadata: ["file": "\(folder.path)/\(source.path)", "chunk": "\(local.chunk)"])
                missed.append(local.chunk)
                continue
            }
            try placement.place(chunk: local.chunk, bytes: UnsafeRawBufferPointer(bytes), digest: digest)
        }
        return missed
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
