internal import SystemSupport
internal import ContentPackaging
import Glibc

/// The second stage of a ``ChunkInstallPipeline``, on `iap-install` only: feed verified chunks to the tar
/// installer in order, and checkpoint. `@unchecked Sendable` because it is built on the transfer thread and handed
/// to the install thread once, at its start; from then on only that thread touches it.
final class ChunkInstallLoop: ChunkInstallStage, @unchecked Sendable {
    private let package: ChunkedPackage
    private var installer: TarStreamInstaller
    /// The chunk expected next.
    private(set) var nextChunk: Int
    private var clock: CheckpointClock
    /// Where the install has written to, for a restart in this boot.
    private let note: WrittenProgressNote?

    /// The path of the ``InstallError/archiveMismatch(path:reason:)`` for a chunk that failed its hash.
    static let badChunkPath = "the downloaded chunk"

    init(
        package: ChunkedPackage, installer: consuming TarStreamInstaller, nextChunk: Int, checkpointBytes: Int64,
        checkpointInterval: Double, note: WrittenProgressNote?
    ) {
        self.note = note
        self.package = package
        self.installer = installer
        self.nextChunk = nextChunk
        clock = CheckpointClock(bytes: checkpointBytes, interval: checkpointInterval)
    }

    /// Installs chunk `index`'s verified bytes; returns a new durable offset when this made a checkpoint.
    func install(index: Int, bytes: UnsafeRawBufferPointer) -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            try installer.consume(bytes)
            nextChunk = index + 1
            note?.record(package.chunks[package.restartChunk(atOrBefore: min(nextChunk, package.chunks.count - 1))].offset)
            CrashHook.reach(.extract)
            guard clock.add(package.chunks[index].length) else { return .success(nil) }
        } catch {
            return .failure(error)
        }
        return checkpoint()
    }

    /// Makes everything installed so far durable; returns the restart offset it allows.
    func checkpoint() -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            try installer.sync()
        } catch {
            return .failure(error)
        }
        clock.reset()
        // The end is never a restart point: the install starts again at the last chunk's restart point.
        let restart = package.restartChunk(atOrBefore: min(nextChunk, package.chunks.count - 1))
        return .success(package.chunks[restart].offset)
    }

    /// After the last chunk: the tree must be complete; syncs it.
    func finish() -> Result<Void, InstallError> {
        do throws(InstallError) {
            guard nextChunk == package.chunks.count else {
                throw .archiveMismatch(path: "the download", reason: "ended after \(nextChunk) of \(package.chunks.count) chunks")
            }
            try installer.finish()
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
