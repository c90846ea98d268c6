/// Where chunk boundaries fall between small files: entries are grouped in path order into frames of at most
/// ``frameBytes`` compressed bytes, each group cut at an entry boundary.
///
/// **Why.** An update fetches every chunk that holds a byte of a changed file. Content-defined chunks of about a
/// megabyte hold dozens of small files, so a change to a few scattered small files touched nearly every chunk
/// (1 % of 10 000 files rewritten fetched 39 % of the archive). Cut at entry boundaries into frames of a bounded
/// *compressed* size, a changed small file costs its own bytes plus at most one frame of neighbours, whatever
/// the content compresses to (text groups hold four times the bytes of incompressible ones). Files of at least
/// a minimum chunk keep chunks of their own with content-defined boundaries inside (``ContentDefinedChunker``).
/// Unchanged files are linked by their hash whatever chunk holds them, so group boundaries need not be
/// content-defined: a shifted group costs nothing unless a file in it changed.
///
/// **How.** Before each entry's header the packer asks ``decide(known:unflushed:entryBytes:)``: `known` is the
/// group's frame size so far as of the last flush (exact: a zstd flush compresses everything given), `unflushed`
/// the tar bytes given since, `entryBytes` the entry's tar bytes that join the group. When even the worst case
/// (``upperBound(_:)``: incompressible input) fits, the entry joins without a flush; otherwise the packer flushes
/// once and decides on the exact size. When the worst case still does not fit, the entry is tried rather than
/// refused: its bytes are held back and compressed on their own, and it joins when that fits
/// (``fits(known:alone:)``). Groups so end only when the next entry does not fit (cutting on the worst case ended
/// Django's groups at 117 frames where 76 hold them). Flushes happen only near a group's end (they end a zstd
/// block, which costs a few bytes). The decisions depend only on the entries, so the archive stays reproducible.
package struct FileGroupBudget: Sendable, Hashable, CustomStringConvertible {
    /// The most bytes a group's zstd frame takes, its frame header and end included.
    package let frameBytes: Int64

    /// 64 KiB: what the update budget allows one changed small file for its neighbours.
    package static let standard = FileGroupBudget(validated: 64 << 10)

    /// The smallest accepted budget, 4 KiB: a frame must hold at least a tar header and a little data.
    package static let smallestFrame: Int64 = 4 << 10

    /// Checks and stores the budget.
    ///
    /// - Throws: ``ChunkingParametersError`` for a budget below ``smallestFrame``.
    package init(frameBytes: Int64) throws(ChunkingParametersError) {
        guard frameBytes >= Self.smallestFrame else {
            throw ChunkingParametersError(
                message: "a file group's frame budget of \(frameBytes) bytes is below the smallest, \(Self.smallestFrame)")
        }
        self.init(validated: frameBytes)
    }

    private init(validated frameBytes: Int64) { self.frameBytes = frameBytes }

    /// What to do before an entry.
    package enum Decision: Sendable, Equatable {
        /// The entry joins the current group.
        case join
        /// Flush the frame and decide again with the exact size (`unflushed` then 0).
        case measure
        /// End the group here: the entry starts the next one.
        case cut
    }

    /// The decision before an entry of `entryBytes` tar bytes, for a group whose frame took `known` bytes at its
    /// last flush and was given `unflushed` tar bytes since. An empty group (`known` and `unflushed` 0) always
    /// takes the entry, however large.
    package func decide(known: Int64, unflushed: Int64, entryBytes: Int64) -> Decision {
        guard known > 0 || unflushed > 0 else { return .join }
        let entry = Self.upperBound(entryBytes)
        if known + Self.upperBound(unflushed) + entry <= frameBytes { return .join }
        if unflushed > 0 { return .measure }
        return known + entry <= frameBytes ? .join : .cut
    }

    /// What ending a frame adds after a flush: the empty last block's 3-byte header (frames carry no checksum).
    package static let frameEndBytes: Int64 = 3

    /// Whether an entry that compresses to `alone` bytes in a frame of its own fits a group whose frame is exactly
    /// `known` bytes (just flushed). In the group the entry's bytes have the frame's history to match against, which
    /// only adds choices; a 1/64 margin and 32 bytes cover the encoder's choosing differently and the new block's
    /// header, and the frame's end is counted.
    package func fits(known: Int64, alone: Int64) -> Bool {
        known + alone + alone / 64 + 32 + Self.frameEndBytes <= frameBytes
    }

    /// The most compressed bytes `count` tar bytes add to a frame: libzstd's `ZSTD_compressBound` (input, plus
    /// 1/256 of it, plus block headers) rounded up, with room for the frame's header and end.
    package static func upperBound(_ count: Int64) -> Int64 {
        guard count > 0 else { return 0 }
        return count + count / 128 + 64
    }

    /// The tar bytes a regular file's entry adds to a group: its header (two blocks, room for a pax record of a
    /// long path) and, unless its data has chunks of its own, the data rounded up to the 512-byte block.
    package static func entryBytes(dataSize: Int64, dataInGroup: Bool) -> Int64 {
        1024 + (dataInGroup ? (dataSize + 511) / 512 * 512 : 0)
    }

    /// "N bytes".
    package var description: String { "\(frameBytes) bytes" }
}
