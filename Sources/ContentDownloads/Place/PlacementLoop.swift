internal import ContentPackaging
import Glibc

/// An update's install stage on `iap-install`: each fetched chunk, verified, is written into the files the
/// update writes (``ChunkPlacement``); checkpoints make them durable and publish how many fetched bytes are
/// installed. Any chunk boundary is a restart point: file data goes to offsets the manifest gives, no tar
/// state is carried from one chunk to the next.
///
/// Each chunk is checked against its signed SHA-256 here, in one pass with the file parts it continues (the
/// `iap-verify` stage only decodes), before any of its bytes is looked at or written.
///
/// Every written file is checked against the new manifest's SHA-256 before the swap (linked files were vouched for
/// when they were linked): on the way when all its bytes arrive here in order, else read back at the end. So the
/// tree swapped in is the new version, file by file.
///
/// `@unchecked Sendable`: built on the transfer thread and handed to the install thread once, at its start.
final class PlacementLoop: ChunkInstallStage, @unchecked Sendable {
    private let package: ChunkedPackage
    private let plan: ChunkPlan
    private let tree: StagingTree
    private let placement: ChunkPlacement
    /// The chunks in place (the resume state), written after each chunk and marked durable at each checkpoint.
    private let placed: PlacedChunks
    /// The plan's chunks.
    private let wanted: Set<Int>
    /// The path of the ``InstallError/archiveMismatch(path:reason:)`` for a chunk that is not the plan's.

    /// The tar headers between files, checked against the manifest as their chunks arrive.
    private var headers: HeaderRegions
    /// Chunks in place already that come again for their header regions (a restart lost their partial regions).
    let recheck: Set<Int>
    /// Fetched bytes in place (written, maybe not yet durable).
    private var installed: Int64
    var installedBytes: Int64 { installed }
    private var clock: CheckpointClock

    /// A loop installing the chunks of `plan` in the tree at `treePath`, whose chunks already in place `placed` lists.
    init(package: ChunkedPackage, plan: ChunkPlan, treePath: String, placed: PlacedChunks, settings: TransferSettings) throws(InstallError) {
        self.package = package
        self.plan = plan
        self.placed = placed
        tree = try StagingTree(path: treePath, wipe: false, expectedBytes: package.manifest.uncompressedSize)
        placement = ChunkPlacement(package: package, written: plan.written, tree: tree)
        wanted = Set(plan.fetch)
        installed = Self.bytes(of: placed.placed.intersection(wanted), in: package)
        headers = HeaderRegions(package: package, fetched: wanted)
        headers.alreadyPassed(placed.passedRegions)
        recheck = headers.chunksToRecheck(placed: placed.placed)
        clock = CheckpointClock(bytes: settings.chunkedCheckpointBytes, interval: settings.checkpointInterval)
    }

    /// The archive bytes of `chunks`' frames.
    static func bytes(of chunks: Set<Int>, in package: ChunkedPackage) -> Int64 {
        chunks.reduce(0) { $0 + package.chunks[$1].length }
    }

    func install(index: Int, bytes: UnsafeRawBufferPointer) -> ChunkInstallResult {
        do throws(InstallError) {
            guard wanted.contains(index) else {
                throw .badChunk(index: index, reason: "it is not one the plan fetches")
            }
            // Nothing of the chunk is used before its signed hash vouched for it.
            let digest = placement.digest(chunk: index, bytes: bytes)
            let chunk = package.chunks[index]
            guard digest.sha256 == chunk.sha256.lowercased() else {
                return .rejected(ChunkError(index: index, offset: chunk.offset, reason: "has SHA-256 \(digest.sha256), the index says \(chunk.sha256)"))
            }
            for region in try headers.take(chunk: index, bytes: bytes) { try placed.recordRegion(region) }
            guard !placed.placed.contains(index) else { return .installed(nil) }  // in place already (fetched for its headers)
            try placement.place(chunk: index, bytes: bytes, digest: digest)
            try placed.record(index)
            installed += chunk.length
            CrashHook.reach(.extract)
            guard clock.add(chunk.length) else { return .installed(nil) }
        } catch {
            return .failed(error)
        }
        switch checkpoint() {
        case .success(let offset): return .installed(offset)
        case .failure(let error): return .failed(error)
        }
    }

    func checkpoint() -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            try placement.release()
            try tree.sync()
            try placed.markDurable()
        } catch {
            return .failure(error)
        }
        clock.reset()
        return .success(installed)
    }

    func finish() -> Result<Void, InstallError> {
        do throws(InstallError) {
            guard installed == plan.fetchBytes, wanted.isSubset(of: placed.placed) else {
                throw .archiveMismatch(path: "the download", reason: "ended with \(installed) of \(plan.fetchBytes) bytes in place")
            }
            guard headers.complete else {
                throw .archiveMismatch(path: "the download", reason: "ended before every tar header it fetched was checked against the manifest")
            }
            try placement.release()
            try tree.sync()
            try placed.markDurable()
            let folder = try InstalledFolder(path: tree.path, seal: nil)
            for index in plan.written where !placement.verified.contains(index)
                && !folder.holds(package.files[index], at: package.displayPath(index))
            {
                throw .archiveMismatch(
                    path: tree.path + "/" + package.displayPath(index),
                    reason: "does not match the signed manifest's SHA-256 once written; the download starts over")
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
