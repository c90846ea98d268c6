import CZstd

/// Compresses an entry held back at a group's end on its own, to learn what it can add to the group's frame.
///
/// **Why.** Cutting a group before an entry whose *worst case* (its raw bytes) does not fit ended Django's groups of
/// small text files at 117 frames where 76 hold them: 1.178× the one-frame archive instead of 1.111×. The entry's
/// compressed size alone bounds what it adds to the frame (the frame's history only adds matches), so the group
/// takes it when the frame's exact size plus that bound fits (``FileGroupBudget/fits(known:alone:)``). The trial runs
/// at zstd level 1 at most (faster, and a looser bound than the archive's level 3), in a frame sized to the entry,
/// and only for an entry that may fit at the group's own ratio (an incompressible one never does). Only entries at a
/// group's end are compressed twice: `pack` takes 0.98–1.12× the time it took before on Django and on 100 000 and
/// 300 000 small files. Mirroring the whole frame in a second context to measure it exactly cost 1.35–1.42×.
///
/// Owned by one ``ArchiveSink``, on its thread.
final class EntryTrial {
    private var compressor: ZstdFrameCompressor
    /// Where the trial's output goes; it is counted, never read.
    private let scratch: UnsafeMutableRawBufferPointer

    /// A trial at zstd `level` (the sink passes the archive's level, 1 at most), with the archive's `dictionary` when
    /// it has one: in its group the entry starts from it too.
    init(level: Int, dictionary: FrameDictionary? = nil) throws(ZstdError) {
        compressor = try ZstdFrameCompressor(level: level)
        if let dictionary { try compressor.use(dictionary: dictionary.bytes) }
        scratch = .allocate(byteCount: Int(ZSTD_CStreamOutSize()), alignment: 16)
    }

    deinit { scratch.deallocate() }

    /// The bytes of `entry` compressed into one frame of its own, header and end included.
    func compressedSize(_ entry: UnsafeRawBufferPointer) throws(ZstdError) -> Int64 {
        try compressor.pledge(entry.count)  // tables sized to the entry: a trial starts cheaply
        var produced: Int64 = 0
        var input = ZSTD_inBuffer(src: entry.baseAddress, size: entry.count, pos: 0)
        while input.pos < input.size {
            var output = ZSTD_outBuffer(dst: scratch.baseAddress, size: scratch.count, pos: 0)
            try compressor.compress(&input, into: &output)
            produced += Int64(output.pos)
        }
        var done = false
        while !done {
            var output = ZSTD_outBuffer(dst: scratch.baseAddress, size: scratch.count, pos: 0)
            done = try compressor.end(into: &output)
            produced += Int64(output.pos)
        }
        return produced
    }
}
