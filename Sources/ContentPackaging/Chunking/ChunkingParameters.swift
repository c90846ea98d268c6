/// The chunk sizes a ``ContentDefinedChunker`` aims for: no chunk shorter than ``minimum`` (but the
/// last of a stream), none longer than ``maximum``, and lengths clustered around ``average``.
///
/// ``average`` must be a power of two because the chunker's cut masks are its binary logarithm
/// ± 2 bits; ``minimum`` and ``maximum`` may be any sizes with `0 < minimum < average < maximum`.
package struct ChunkingParameters: Sendable, Hashable, CustomStringConvertible {
    /// The smallest chunk, in bytes; no boundary is looked for in a chunk's first `minimum` bytes.
    package let minimum: Int
    /// The target chunk size in bytes, a power of two; the mask changes from strict to loose here.
    package let average: Int
    /// The largest chunk, in bytes: a chunk that reaches it without a content-defined boundary is
    /// cut there.
    package let maximum: Int

    /// The smallest accepted ``average``, 64 bytes: the loose mask still has 4 bits.
    package static let smallestAverage = 1 << 6
    /// The largest accepted ``average``, 1 GiB: the strict mask still fits a 64-bit hash with room.
    package static let largestAverage = 1 << 30

    /// 256 KiB / 1 MiB / 4 MiB, the sizes of the archive format's chunks.
    ///
    /// Small enough that an edit re-downloads about a megabyte and a chunk verifies quickly in
    /// memory; large enough that one zstd frame per chunk costs next to nothing in size, and that
    /// a 100 GiB package has about 100 000 index entries.
    package static let standard = ChunkingParameters(validated: 256 << 10, 1 << 20, 4 << 20)

    /// Checks and stores the sizes.
    ///
    /// - Throws: ``ChunkingParametersError`` unless `0 < minimum < average < maximum` and
    ///   `average` is a power of two from ``smallestAverage`` to ``largestAverage``.
    package init(minimum: Int, average: Int, maximum: Int) throws(ChunkingParametersError) {
        guard 0 < minimum, minimum < average, average < maximum else {
            throw ChunkingParametersError(
                message: "chunk sizes \(minimum) / \(average) / \(maximum) must satisfy "
                    + "0 < minimum < average < maximum")
        }
        guard average.nonzeroBitCount == 1, (Self.smallestAverage...Self.largestAverage).contains(average) else {
            throw ChunkingParametersError(
                message: "average chunk size \(average) must be a power of two from \(Self.smallestAverage) "
                    + "to \(Self.largestAverage)")
        }
        self.init(validated: minimum, average, maximum)
    }

    /// Stores sizes known to be valid.
    private init(validated minimum: Int, _ average: Int, _ maximum: Int) {
        self.minimum = minimum
        self.average = average
        self.maximum = maximum
    }

    /// The binary logarithm of ``average``: how many hash bits a cut at the average needs zero.
    var averageBits: Int { average.trailingZeroBitCount }

    /// "minimum / average / maximum" in bytes.
    package var description: String { "\(minimum) / \(average) / \(maximum)" }
}
