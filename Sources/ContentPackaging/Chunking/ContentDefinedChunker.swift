/// Finds content-defined chunk boundaries in a byte stream (FastCDC-style gear hashing with
/// normalized chunking), one piece of the stream at a time.
///
/// **Why.** A chunk-indexed archive is its uncompressed tar stream cut into chunks, each compressed
/// as its own zstd frame and hashed on its own. Cutting where the *content* says, rather than at
/// fixed offsets, keeps an edit local: bytes inserted into or deleted from a big file change the
/// chunk they fall in and perhaps the next, and every later boundary falls on the same content as
/// before, so those chunks and their hashes stay the same. The boundaries know nothing about
/// files, so small files share a chunk.
///
/// **How** (Xia et al., "FastCDC", USENIX ATC 2016, with normalized chunking):
/// - A gear hash rolls over the bytes: `hash = (hash << 1) &+ gear[byte]`, with the fixed table of
///   ``GearTable``. Each shift pushes old bytes out of the top, so the top bit depends on the last
///   64 bytes only; a boundary is decided by a 64-byte window of content.
/// - A chunk ends just after a byte where the top `k` bits of the hash are zero (the hash is below
///   2^(64−k)). Up to ``ChunkingParameters/average`` bytes into a chunk `k` is log2(average) + 2
///   (a cut is 4× less likely than 1 in `average`), from there on log2(average) − 2 (4× more
///   likely): chunk lengths cluster around the average instead of spreading out exponentially.
///   With a minimum of a quarter of the average, chunks of random data average about 1.13 ×
///   ``ChunkingParameters/average``.
/// - The first ``ChunkingParameters/minimum`` bytes of a chunk are skipped without hashing (the
///   hash restarts from zero there), which both enforces the minimum and saves hashing about a
///   fifth of the stream; a chunk that reaches ``ChunkingParameters/maximum`` bytes is cut
///   there (so a run of identical bytes, whose hash settles on one value, still gets cut).
///
/// The masks test the *top* bits of the hash rather than FastCDC's zero-padded low-bit masks: the
/// low bits of a gear hash depend on the last few bytes only, the top bits on all 64 of the window.
///
/// **Streaming.** ``nextBoundary(in:)`` takes whatever pieces the stream arrives in (libarchive
/// writes 10 KiB to 1 MiB at a time) and keeps the hash and the current chunk's length across
/// calls. A boundary depends only on the bytes, never on how they were split into calls.
///
/// **Reproducibility.** Boundaries are part of the archive format: re-packing a folder must give
/// the same bytes on every machine, today and in any later version. The gear table (seed and
/// generator), the masks, the minimum skip, the hash restart and the hard cut described here must
/// therefore never change; a golden test pins the boundaries of a fixed input.
///
/// ```swift
/// var chunker = ContentDefinedChunker(parameters: .standard)
/// func receive(_ piece: UnsafeRawBufferPointer) {
///     var rest = piece
///     while let cut = chunker.nextBoundary(in: rest) {
///         appendToChunk(UnsafeRawBufferPointer(rebasing: rest[..<cut]))
///         endChunk()
///         rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
///     }
///     appendToChunk(rest)
/// }
/// // At the end of the stream, a non-empty current chunk (`currentChunkLength > 0`) is the last.
/// ```
package struct ContentDefinedChunker: Sendable {
    /// The chunk sizes aimed for.
    package let parameters: ChunkingParameters
    /// Bytes of the stream consumed into the current chunk (0 right after a boundary).
    package private(set) var currentChunkLength = 0
    /// The gear hash over the current chunk's bytes from its ``ChunkingParameters/minimum``-th on.
    private var hash: UInt64 = 0
    /// The largest hash that ends a chunk below ``ChunkingParameters/average`` bytes: the top
    /// log2(average) + 2 bits are zero exactly when the hash is at most `UInt64.max >> (log2(average) + 2)`.
    private let strictLimit: UInt64
    /// The largest hash that ends a chunk from ``ChunkingParameters/average`` bytes on (the top
    /// log2(average) − 2 bits zero).
    private let looseLimit: UInt64
    /// ``GearTable/values``, held so the hot loop reaches it without a lazy-initialization check.
    private let gear = GearTable.values

    /// A chunker at the start of a stream.
    package init(parameters: ChunkingParameters = .standard) {
        self.parameters = parameters
        strictLimit = UInt64.max >> (parameters.averageBits + 2)
        looseLimit = UInt64.max >> (parameters.averageBits - 2)
    }

    /// Starts a new chunk here, whatever the content (the packer cuts around large files).
    package mutating func startChunk() {
        currentChunkLength = 0
        hash = 0
    }

    /// Consumes `bytes`, the next piece of the stream, up to the first chunk boundary in it.
    ///
    /// - Returns: the offset in `bytes` just past the current chunk's last byte when the chunk
    ///   ends inside `bytes` (`1...bytes.count`); the chunker has then started a new chunk, and
    ///   the bytes from that offset on are not consumed yet: pass them in the next call. `nil`
    ///   when all of `bytes` belongs to the current chunk (all consumed).
    package mutating func nextBoundary(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let count = bytes.count
        var offset = 0
        var length = currentChunkLength
        if length < parameters.minimum {  // no boundary can fall here: skip without hashing
            offset = min(parameters.minimum - length, count)
            length += offset
            if offset == count {
                currentChunkLength = length
                return nil
            }
        }
        var hash = self.hash
        var cut: Int? = nil
        gear.withUnsafeBufferPointer { table in
            let table = table.baseAddress.unsafelyUnwrapped
            if length < parameters.average {
                let end = offset + min(parameters.average - length, count - offset)
                cut = Self.scan(base, from: offset, to: end, gear: table, limit: strictLimit, hash: &hash)
                length += end - offset
                offset = end
            }
            if cut == nil, offset < count {
                let end = offset + min(parameters.maximum - length, count - offset)
                cut = Self.scan(base, from: offset, to: end, gear: table, limit: looseLimit, hash: &hash)
                length += end - offset
                offset = end
            }
        }
        if cut == nil, length == parameters.maximum { cut = offset }
        if let cut {
            reset()
            return cut
        }
        self.hash = hash
        currentChunkLength = length
        return nil
    }

    /// Forgets the current chunk: the next byte passed starts a new chunk, as at a stream's start.
    package mutating func reset() {
        currentChunkLength = 0
        hash = 0
    }

    /// Rolls `hash` over `base[start..<end]` and returns the offset just past the first byte after
    /// which the hash is at most `limit`, or `nil` when there is none.
    ///
    /// Four bytes per turn: after bytes `b0…b3` the hash is `(hash << 4) &+ t4` with
    /// `t4 = gear[b0] << 3 &+ gear[b1] << 2 &+ gear[b2] << 1 &+ gear[b3]`, and likewise after one,
    /// two and three bytes. The `t` terms depend on the bytes only, so the loop-carried chain is
    /// one shift and one add per four bytes instead of per byte (about 1.4× the throughput of the
    /// byte loop); every one of the four hashes is still compared, so the boundaries are exactly
    /// those of the byte-by-byte definition, which finishes the last bytes.
    @inline(__always)
    private static func scan(
        _ base: UnsafeRawPointer, from start: Int, to end: Int,
        gear: UnsafePointer<UInt64>, limit: UInt64, hash: inout UInt64
    ) -> Int? {
        var rolling = hash
        var index = start
        while index &+ 4 <= end {
            let word = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt32.self))
            let t1 = gear[Int(word & 0xFF)]
            let t2 = (t1 &<< 1) &+ gear[Int((word >> 8) & 0xFF)]
            let t3 = (t2 &<< 1) &+ gear[Int((word >> 16) & 0xFF)]
            let t4 = (t3 &<< 1) &+ gear[Int(word >> 24)]
            let h1 = (rolling &<< 1) &+ t1
            let h2 = (rolling &<< 2) &+ t2
            let h3 = (rolling &<< 3) &+ t3
            let h4 = (rolling &<< 4) &+ t4
            if h1 <= limit {
                hash = h1
                return index &+ 1
            }
            if h2 <= limit {
                hash = h2
                return index &+ 2
            }
            if h3 <= limit {
                hash = h3
                return index &+ 3
            }
            rolling = h4
            index &+= 4
            if h4 <= limit {
                hash = h4
                return index
            }
        }
        while index < end {
            rolling = (rolling &<< 1) &+ gear[Int(base.load(fromByteOffset: index, as: UInt8.self))]
            index &+= 1
            if rolling <= limit {
                hash = rolling
                return index
            }
        }
        hash = rolling
        return nil
    }
}
