internal import SystemSupport
internal import ContentPackaging

/// The first stage of a ``ChunkInstallPipeline``, on `iap-verify` only: decompress a frame into a chunk buffer
/// and check it against the signed chunk index (length and SHA-256), in order.
///
/// `@unchecked Sendable` because it is built on the transfer thread and handed to its thread once, at the start.
final class ChunkVerifier: @unchecked Sendable {
    private let package: ChunkedPackage
    private var decoder = ChunkDecoder(maximumLength: 0)
    private var nextChunk: Int?

    init(package: ChunkedPackage) {
        self.package = package
    }

    /// Decodes chunk `index` from `frame` into `chunk`; its length when it matched the index.
    func decode(index: Int, frame: PageAlignedBuffer, into chunk: PageAlignedBuffer) -> Result<Int, InstallError> {
        if let expected = nextChunk, index != expected {
            return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: "chunk \(index) arrived instead of chunk \(expected)"))
        }
        guard index < package.chunks.count else {
            return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: "chunk \(index) is past the last chunk"))
        }
        nextChunk = index + 1
        let entry = package.chunks[index]
        do {
            let bytes = try decoder.decode(
                UnsafeRawBufferPointer(rebasing: frame.bytes[0..<Int(entry.length)]), as: entry, index: index, into: chunk.bytes)
            return .success(bytes.count)
        } catch {
            return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: error.description))
        }
    }
}
