internal import SystemSupport
internal import ContentPackaging

/// The first stage of a ``ChunkInstallPipeline``, on `iap-verify` only: decompress each frame as its pieces
/// arrive into a chunk buffer and check it against the signed chunk index (length and SHA-256), in order.
///
/// `@unchecked Sendable` because it is built on the transfer thread and handed to its thread once, at the start.
final class ChunkVerifier: @unchecked Sendable {
    private let package: ChunkedPackage
    private var decoder = ChunkStreamDecoder()
    /// The chunk being decoded, and the one expected after it.
    private var current: Int?
    private var nextChunk: Int?

    /// The chunk after each one, when only some chunks arrive (an update fetches a few).
    private let successor: [Int: Int]?

    /// A verifier for `package`'s chunks, arriving in archive order: all of them, or only those in `order`.
    init(package: ChunkedPackage, order: [Int]? = nil) {
        self.package = package
        successor = order.map { order in
            Dictionary(uniqueKeysWithValues: order.indices.map { (order[$0], $0 + 1 < order.count ? order[$0 + 1] : package.chunks.count) })
        }
    }

    /// Decodes the next `piece` of chunk `index` into `chunk`; at the frame's end (`last`) checks it and returns
    /// its length (`nil` before the end).
    func take(index: Int, piece: UnsafeRawBufferPointer, last: Bool, into chunk: PageAlignedBuffer) -> Result<Int?, InstallError> {
        if current != index {
            if let expected = nextChunk, index != expected {
                return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: "chunk \(index) arrived instead of chunk \(expected)"))
            }
            guard index < package.chunks.count else {
                return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: "chunk \(index) is past the last chunk"))
            }
        }
        do throws(ChunkError) {
            if current != index {
                try decoder.begin(package.chunks[index], index: index, into: chunk.bytes)
                current = index
                nextChunk = successor.map { $0[index] ?? package.chunks.count } ?? index + 1
            }
            try decoder.feed(piece)
            guard last else { return .success(nil) }
            current = nil
            return .success(try decoder.finish().count)
        } catch {
            return .failure(.archiveMismatch(path: ChunkInstallLoop.badChunkPath, reason: error.description))
        }
    }
}
