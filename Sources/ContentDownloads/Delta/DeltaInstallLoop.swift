internal import ContentPackaging
import Glibc

/// An update's install stage on `iap-install`: each fetched chunk, verified, is written into the files the
/// update writes (``ChunkPlacement``); checkpoints make them durable and publish how many fetched bytes are
/// installed. Any chunk boundary is a restart point: file data goes to offsets the manifest gives, no tar
/// state is carried from one chunk to the next.
///
/// Every written file is checked against the new manifest's SHA-256 before the swap (linked files were vouched for
/// when they were linked): on the way when all its bytes arrive here in order, else read back at the end. So the
/// tree swapped in is the new version, file by file.
///
/// `@unchecked Sendable`: built on the transfer thread and handed to the install thread once, at its start.
final class DeltaInstallLoop: ChunkInstallStage, @unchecked Sendable {
    private let package: ChunkedPackage
    private let plan: DeltaPlan
    private let tree: StagingTree
    private let placement: ChunkPlacement
    /// Where each fetched chunk starts among the fetched bytes.
    private let fetchedStart: [Int: Int64]
    /// Fetched bytes installed (written, maybe not yet durable).
    private var installed: Int64
    private var clock: CheckpointClock

    /// A loop continuing at fetched byte `offset` (a chunk start) of `plan`, in the tree at `treePath`.
    init(package: ChunkedPackage, plan: DeltaPlan, treePath: String, offset: Int64, settings: TransferSettings) throws(InstallError) {
        self.package = package
        self.plan = plan
        tree = try StagingTree(path: treePath, wipe: false, expectedBytes: package.manifest.uncompressedSize)
        placement = ChunkPlacement(package: package, written: plan.written, tree: tree)
        fetchedStart = DeltaInstallLoop.starts(of: plan, in: package)
        installed = offset
        clock = CheckpointClock(bytes: settings.chunkedCheckpointBytes, interval: settings.checkpointInterval)
    }

    /// The fetched-bytes offset of each chunk of `plan`.
    static func starts(of plan: DeltaPlan, in package: ChunkedPackage) -> [Int: Int64] {
        var starts: [Int: Int64] = [:]
        var offset: Int64 = 0
        for index in plan.fetch {
            starts[index] = offset
            offset += package.chunks[index].length
        }
        return starts
    }

    func install(index: Int, bytes: UnsafeRawBufferPointer) -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            guard let start = fetchedStart[index] else {
                throw .archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: "chunk \(index) is not one the update fetches")
            }
            try placement.place(chunk: index, bytes: bytes)
            installed = start + package.chunks[index].length
            CrashHook.reach(.extract)
            guard clock.add(package.chunks[index].length) else { return .success(nil) }
        } catch {
            return .failure(error)
        }
        return checkpoint()
    }

    func checkpoint() -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            try placement.release()
            try tree.sync()
        } catch {
            return .failure(error)
        }
        clock.reset()
        return .success(installed)
    }

    func finish() -> Result<Void, InstallError> {
        do throws(InstallError) {
            guard installed == plan.fetchBytes else {
                throw .archiveMismatch(path: "the update", reason: "ended after \(installed) of \(plan.fetchBytes) bytes")
            }
            try placement.release()
            try tree.sync()
            let folder = try InstalledFolder(path: tree.path, seal: nil)
            for index in plan.written where !placement.verified.contains(index)
                && !folder.holds(package.files[index], at: package.files[index].path)
            {
                DeltaPlan.remove(treePath: tree.path)  // the next attempt builds the tree again
                throw .archiveMismatch(
                    path: tree.path + "/" + package.files[index].path,
                    reason: "does not match the new manifest after the update; the update starts over")
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
