internal import SystemSupport
internal import ContentPackaging
import Glibc

/// The work of a ``ChunkInstallThread``, on that thread only: decode and verify each frame in order, feed the
/// tar installer, and checkpoint. `@unchecked Sendable` because it is built on the transfer thread and handed
/// to the install thread once, at its start; from then on only that thread touches it.
final class ChunkInstallLoop: @unchecked Sendable {
    private let package: ChunkedPackage
    private var installer: TarStreamInstaller
    private var decoder: ChunkDecoder
    /// The chunk expected next.
    private(set) var nextChunk: Int
    private let checkpointBytes: Int64
    private let checkpointInterval: Double
    /// Archive bytes installed since the last checkpoint, and when that was.
    private var sinceCheckpoint: Int64 = 0
    private var lastCheckpoint = Transfer.now()

    /// The path of the ``InstallError/archiveMismatch(path:reason:)`` for a chunk that failed its hash.
    static let badChunkPath = "the downloaded chunk"

    init(
        package: ChunkedPackage, installer: consuming TarStreamInstaller, nextChunk: Int, checkpointBytes: Int64,
        checkpointInterval: Double
    ) {
        self.package = package
        self.installer = installer
        self.nextChunk = nextChunk
        self.checkpointBytes = checkpointBytes
        self.checkpointInterval = checkpointInterval
        decoder = ChunkDecoder(maximumLength: package.largestChunk)
    }

    /// Verifies and installs chunk `index`; returns a new durable offset when this made a checkpoint.
    func install(index: Int, frame: PageAlignedBuffer) -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            guard index == nextChunk, index < package.chunks.count else {
                throw .archiveMismatch(path: "chunk \(index)", reason: "arrived out of order (expected chunk \(nextChunk))")
            }
            let chunk = package.chunks[index]
            let bytes: UnsafeRawBufferPointer
            do {
                bytes = try decoder.decode(
                    UnsafeRawBufferPointer(rebasing: frame.bytes[0..<Int(chunk.length)]), as: chunk, index: index)
            } catch {
                throw .archiveMismatch(path: Self.badChunkPath, reason: error.description)
            }
            try installer.consume(bytes)
            nextChunk += 1
            sinceCheckpoint += chunk.length
            CrashHook.reach(.extract)
            guard sinceCheckpoint >= checkpointBytes || Transfer.now() - lastCheckpoint >= checkpointInterval else {
                return .success(nil)
            }
            return checkpoint()
        } catch {
            return .failure(error)
        }
    }

    /// Makes everything installed so far durable; returns the restart offset it allows.
    func checkpoint() -> Result<Int64?, InstallError> {
        do throws(InstallError) {
            try installer.sync()
        } catch {
            return .failure(error)
        }
        sinceCheckpoint = 0
        lastCheckpoint = Transfer.now()
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
