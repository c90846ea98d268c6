import CZstd

/// Compresses a compact manifest's body into its one zstd frame as the body is made, handing the compressed
/// bytes on through a small buffer: the body and the frame are never held whole.
///
/// The frame's parameters are the format's (docs/MANIFEST-FORMAT.md): level 12, a content checksum, the body
/// length in the frame header, a 1 MiB window. libzstd's buffered streaming cuts blocks at fixed input
/// boundaries, so the bytes are the same however the body is split into calls.
final class ManifestBodyCompressor {
    private let context: OpaquePointer
    private var buffer: [UInt8]
    /// Where the frame starts in the whole manifest, for the offsets of error messages.
    private let headLength: Int

    /// A compressor for a body of `bodyLength` bytes, which follows `headLength` bytes of envelope.
    /// - Throws: ``ManifestFormatError`` when libzstd cannot allocate or refuses a parameter.
    init(bodyLength: Int, headLength: Int) throws(ManifestFormatError) {
        self.headLength = headLength
        guard let context = ZSTD_createCCtx() else {
            throw ManifestFormatError(field: "body", offset: headLength, inBody: false, reason: "libzstd could not allocate a compression context (out of memory?)")
        }
        self.context = context
        buffer = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, CompactManifestFormat.zstdLevel)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
        // The level's own tables for a body of megabytes take about ten times the body (51 MiB for 100 000 files);
        // what repeats (a path's folder, neighbouring sizes) is near, so a 1 MiB window and small tables lose
        // next to nothing.
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, 20)
        ZSTD_CCtx_setParameter(context, ZSTD_c_hashLog, 18)
        ZSTD_CCtx_setParameter(context, ZSTD_c_chainLog, 18)
        let code = ZSTD_CCtx_setPledgedSrcSize(context, UInt64(bodyLength))
        guard ZSTD_isError(code) == 0 else { throw failure(code) }
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// Compresses `input`, handing whatever compressed bytes come out to `output`.
    /// - Throws: ``ManifestFormatError`` when libzstd fails, or what `output` throws.
    func compress(_ input: UnsafeRawBufferPointer, to output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while source.pos < source.size {
            try step(&source, ZSTD_e_continue, to: output)
        }
    }

    /// Ends the frame, handing its last bytes to `output`.
    /// - Throws: ``ManifestFormatError`` when libzstd fails (for one, when the body was not the length pledged),
    ///   or what `output` throws.
    func end(to output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while try step(&source, ZSTD_e_end, to: output) != 0 {}
    }

    /// One call of `ZSTD_compressStream2` into the buffer, whose output is handed on; returns libzstd's hint
    /// (0 once a frame is complete).
    @discardableResult
    private func step(
        _ source: inout ZSTD_inBuffer, _ directive: ZSTD_EndDirective, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let (remaining, produced) = buffer.withUnsafeMutableBytes { room in
            var target = ZSTD_outBuffer(dst: room.baseAddress, size: room.count, pos: 0)
            let remaining = ZSTD_compressStream2(context, &target, &source, directive)
            return (remaining, target.pos)
        }
        guard ZSTD_isError(remaining) == 0 else { throw failure(remaining) }
        if produced > 0 { try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) } }
        return remaining
    }

    /// libzstd's refusal, in its words.
    private func failure(_ code: Int) -> ManifestFormatError {
        ManifestFormatError(field: "body", offset: headLength, inBody: false, reason: "libzstd could not compress it (\(String(cString: ZSTD_getErrorName(code))))")
    }
}
