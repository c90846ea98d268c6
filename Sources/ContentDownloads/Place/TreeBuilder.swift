internal import SystemSupport
internal import ContentPackaging
internal import Logging
internal import Foundation
internal import Crypto
import Glibc

/// The local half of a chunk plan, on the planning thread (`iap-update`) before any byte is fetched: it builds
/// the new version's tree in `transfers/<product>-<version>.update` from a ``ChunkPlanDecision`` and keeps the
/// plan for the rest.
///
/// In order: folders are made; unchanged files become links to the installed ones; empty files are created (the
/// others are when their first part is placed); each chunk the installed files hold is rebuilt, checked against the new signed chunk index
/// and written where the new manifest says (a chunk that does not match is fetched instead) — ``build()``, after
/// which the plan is known and may go to the fetch. Then ``keep(_:)``: the manifest the plan follows and the
/// tree are made durable, then the selection record is written, then the plan, each durably. When no chunk is
/// rebuilt, the plan does not wait for the tree: ``keep(_:)`` makes the folders, links and files, off the path to
/// the first byte. The installed folder is only read.
struct TreeBuilder {
    let decision: ChunkPlanDecision

    private var package: ChunkedPackage { decision.package }
    private var installed: (chunks: InstalledChunks, folder: InstalledFolder)? { decision.installed }
    private var treePath: String { decision.treePath }

    /// A tree built and its plan, neither durable yet; owned by the thread that built it until ``keep(_:)``.
    struct Built {
        let plan: ChunkPlan
        fileprivate let tree: StagingTree
        /// Whether the tree's folders, links and files are made; when not, ``keep(_:)`` makes them (nothing was
        /// rebuilt into them, so the plan did not wait for them).
        fileprivate let populated: Bool
    }

    /// Decides the plan and builds what it depends on, in memory: nothing is durable and no plan is beside the tree
    /// until ``keep(_:)``. The tree's folder is made empty at once. When chunks are rebuilt from the installed
    /// files, its folders, links and files are made first and the chunks written into them (the plan then fetches
    /// the ones that did not match); when none are, the plan does not depend on the tree, and ``keep(_:)`` makes
    /// them while the fetch opens its connections (taking them off the path to the first byte; the fetch places
    /// nothing before ``keep(_:)`` returns). Throws ``InstallError`` naming the path and the reason when the tree
    /// cannot be built (``PlanBuilder/nothingToFetch`` when every chunk was rebuilt: the caller plans from nothing).
    func build() throws(InstallError) -> Built {
        var draft = decision.draft
        Store.discardPlan(treePath: treePath)
        let tree = try StagingTree(path: treePath, wipe: true, expectedBytes: package.manifest.uncompressedSize)
        guard !draft.local.isEmpty || !draft.patched.isEmpty else {
            guard !draft.fetch.isEmpty else { throw .archiveMismatch(path: treePath, reason: PlanBuilder.nothingToFetch) }
            return Built(plan: plan(draft, missed: []), tree: tree, populated: false)
        }
        try populate(tree)
        let placement = ChunkPlacement(package: package, written: draft.written, tree: tree)
        let missed = try rebuild(draft.local, into: placement)
        CrashHook.reach(.prepare)
        try placement.release()
        draft.fetch = (draft.fetch + missed).sorted()
        // A patch that made every changed file leaves nothing to fetch: the plan runs through the fetch at once.
        guard !draft.fetch.isEmpty || !draft.patched.isEmpty else { throw .archiveMismatch(path: treePath, reason: PlanBuilder.nothingToFetch) }
        return Built(plan: plan(draft, missed: missed), tree: tree, populated: true)
    }

    /// Builds the whole tree of a decision that fetches nothing (a change made from the installed files alone,
    /// ``Planner/decideLocal(productID:selection:metadata:)``) and makes it durable, then its selection record: the
    /// tree is then ready to swap in. Returns false, with the tree deleted, when an installed file no longer holds a
    /// chunk the tree needs (the change must fetch it: the caller plans it the usual way).
    func buildLocal() throws(InstallError) -> Bool {
        Store.discardPlan(treePath: treePath)
        let tree = try StagingTree(path: treePath, wipe: true, expectedBytes: package.manifest.uncompressedSize)
        try populate(tree)
        if !decision.draft.local.isEmpty {
            let placement = ChunkPlacement(package: package, written: decision.draft.written, tree: tree)
            let missed = try rebuild(decision.draft.local, into: placement)
            try placement.release()
            guard missed.isEmpty else {
                try? FileSystemCalls.removeTree(treePath)
                return false
            }
        }
        CrashHook.reach(.prepare)
        try tree.sync()
        if let selection = package.selection, let directory = decision.selectionsDirectory {
            try Store.keepSelection(selection, productID: package.manifest.productID, treePath: treePath, in: directory)
        }
        return true
    }

    /// Makes the kept manifest durable, then the tree (its folders, links and files first, unless ``build()``
    /// made them), then keeps its selection record, then its plan (each durably): a plan on disk always has its
    /// manifest, its tree and its selection beside it, and no fetched byte is placed in the tree before this
    /// returns (``PlanKeeping``).
    func keep(_ built: Built) throws(InstallError) {
        CrashHook.hold(.unkept)
        if let manifest = decision.manifestPath {
            do { try DurableFile.sync(URL(fileURLWithPath: manifest)) } catch {
                throw .system(operation: error.operation, path: error.path, errno: error.errno)
            }
        }
        if !built.populated {
            try populate(built.tree)
            CrashHook.reach(.prepare)
        }
        try built.tree.sync()
        if let selection = package.selection, let directory = decision.selectionsDirectory {
            try Store.keepSelection(selection, productID: package.manifest.productID, treePath: treePath, in: directory)
        }
        do { try built.plan.keep(treePath: treePath) } catch {
            throw .system(operation: error.operation, path: error.path, errno: error.errno)
        }
    }

    /// Makes the tree's folders, links every unchanged file to the installed one, and creates every empty written
    /// file.
    private func populate(_ tree: StagingTree) throws(InstallError) {
        for directory in decision.directories {
            let checked: InstallPath
            do { checked = try InstallPath(directory) } catch {
                throw .refusedManifest(path: package.manifestDisplay, reason: "lists the folder \(error); the publisher must pack and publish it again")
            }
            try tree.makeDirectory(checked)
        }
        for link in decision.draft.links {
            guard let (chunks, folder) = installed else { break }
            let installedPath = chunks.manifest.files[link.installedFile].path
            let made: Void? = try folder.withParent(of: installedPath) { parent, name throws(InstallError) in
                try tree.link(name, in: parent, as: try package.installPath(link.file))
            }
            guard made != nil else { throw .system(operation: "link", path: folder.path + "/" + installedPath, errno: ENOENT) }
        }
        // An empty file has no part in any chunk: made here. The others are made when their first part is placed.
        for index in decision.draft.written where package.files[index].size == 0 {
            try tree.create(try package.installPath(index), size: 0)
        }
        for index in decision.draft.patched { try placePatched(index, into: tree) }
    }

    /// Writes the new file `index` a patch made (``Store/patchedFile(productID:version:file:)``) into the tree,
    /// once its bytes are again the length and SHA-256 the new manifest lists (a file torn by a crash, or made for
    /// another manifest, is refused: the planning fails, and the store's discard of the update takes what the patch made).
    private func placePatched(_ index: Int, into tree: StagingTree) throws(InstallError) {
        let file = package.files[index]
        let source = decision.patchedPath(index)
        guard let bytes = FileManager.default.contents(atPath: source), Int64(bytes.count) == file.size,
              SHA256.hash(data: bytes).lowercaseHex == file.sha256
        else {
            throw .archiveMismatch(path: source, reason: "the file a patch made for \(file.path) is not the one the new manifest lists; planning again fetches it")
        }
        let target = try package.installPath(index)
        let descriptor = try tree.openFile(target, truncate: true)
        let written: InstallError? = bytes.withUnsafeBytes { raw in
            do throws(InstallError) { try tree.write(raw, to: descriptor, at: 0, fileSize: Int64(raw.count), display: target.string) } catch { return error }
            return nil
        }
        if let written {
            close(descriptor)
            throw written
        }
        try tree.finish(descriptor, size: file.size, relative: target.string)
    }

    /// The plan of `draft`, whose rebuilt chunks but `missed` are in the tree.
    private func plan(_ draft: PlanDraft, missed: [Int]) -> ChunkPlan {
        ChunkPlan(
            contentVersion: package.manifest.contentVersion.description, archiveLength: decision.archiveLength,
            written: draft.written, fetch: draft.fetch, fetchBytes: draft.fetchBytes(in: package),
            linkedFiles: draft.links.count, rebuiltChunks: draft.local.count - missed.count,
            rebuiltBytes: draft.local.filter { !missed.contains($0.chunk) }.reduce(0) { $0 + $1.source.length },
            selection: package.selection)
    }

    /// Rebuilds each chunk from the installed files and writes it when it matches its signed hash; returns
    /// the chunks that did not (to fetch).
    private func rebuild(_ chunks: [PlanDraft.LocalChunk], into placement: ChunkPlacement) throws(InstallError) -> [Int] {
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
}
