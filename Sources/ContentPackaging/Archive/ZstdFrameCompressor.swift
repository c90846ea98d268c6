import CZstd

/// zstd frames, compressed with libzstd's streaming API straight into the caller's buffers; after
/// ``end(into:)`` the next input starts a new frame with the same parameters (one per archive chunk).
///
/// Each frame is single-threaded, at the given level, with no content checksum (each chunk has its
/// SHA-256 in the manifest) and no content size (it is not known up front), window from the level's
/// table. Input is fed with `ZSTD_e_continue` and the frame closed with `ZSTD_e_end` on empty input,
/// so the bytes are the same however the input is split into calls: zstd's buffered mode cuts blocks
/// at fixed 128 KiB input boundaries, not at call boundaries.
///
/// Noncopyable: one owner frees the context exactly once.
struct ZstdFrameCompressor: ~Copyable {
    /// The levels libzstd accepts (negative levels are its "fast" modes).
    static var levels: ClosedRange<Int> { Int(ZSTD_minCLevel())...Int(ZSTD_maxCLevel()) }

    private let context: OpaquePointer

    /// Creates a compressor at `level`.
    ///
    /// - Throws: ``ZstdError`` when the level is out of range or libzstd cannot allocate.
    init(level: Int) throws(ZstdError) {
        guard Self.levels.contains(level) else {
            throw ZstdError(message: "zstd level \(level) is outside \(Self.levels); choose a level in that range")
        }
        guard let context = ZSTD_createCCtx() else {
            throw ZstdError(message: "libzstd could not allocate a compression context (out of memory?)")
        }
        for (parameter, value) in [
            (ZSTD_c_compressionLevel, Int32(level)),
            (ZSTD_c_checksumFlag, 0),  // as libarchive 3.6.2: no content checksum
            (ZSTD_c_nbWorkers, 0),  // single-threaded: multithreaded frames differ byte-wise
        ] {
            let code = ZSTD_CCtx_setParameter(context, parameter, value)
            if ZSTD_isError(code) != 0 {
                ZSTD_freeCCtx(context)
                throw ZstdError(code: code, doing: "setting parameter \(parameter.rawValue) to \(value)")
            }
        }
        self.context = context
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// Compresses from `input` into `output` until the input is consumed or the output is full.
    ///
    /// Call again with the same input after making room when `output.pos == output.size`.
    mutating func compress(_ input: inout ZSTD_inBuffer, into output: inout ZSTD_outBuffer) throws(ZstdError) {
        let code = ZSTD_compressStream2(context, &output, &input, ZSTD_e_continue)
        if ZSTD_isError(code) != 0 { throw ZstdError(code: code, doing: "compressing") }
    }

    /// Ends the current block into `output` without ending the frame (`ZSTD_e_flush`), so every byte given so
    /// far is compressed and out: the bytes produced then say exactly how large the frame is so far. Returns
    /// true when all of it is out, false when `output` filled up first (make room and call again).
    ///
    /// The bytes stay reproducible as long as the caller flushes at points the input alone decides.
    mutating func flush(into output: inout ZSTD_outBuffer) throws(ZstdError) -> Bool {
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        let remaining = ZSTD_compressStream2(context, &output, &input, ZSTD_e_flush)
        if ZSTD_isError(remaining) != 0 { throw ZstdError(code: remaining, doing: "flushing a block") }
        return remaining == 0
    }

    /// Compresses every frame from the next one on with `dictionary` (a trained zstd dictionary, ``FrameDictionary``):
    /// libzstd digests it once and each frame starts from it, at this compressor's level.
    mutating func use(dictionary: [UInt8]) throws(ZstdError) {
        let code = dictionary.withUnsafeBytes { ZSTD_CCtx_loadDictionary(context, $0.baseAddress, $0.count) }
        if ZSTD_isError(code) != 0 { throw ZstdError(code: code, doing: "loading the archive's dictionary") }
    }

    /// Declares the next frame's input size (before its first byte): libzstd then sizes its tables to the input,
    /// so a small frame costs little to start, and writes the size in the frame's header.
    mutating func pledge(_ size: Int) throws(ZstdError) {
        let code = ZSTD_CCtx_setPledgedSrcSize(context, UInt64(size))
        if ZSTD_isError(code) != 0 { throw ZstdError(code: code, doing: "declaring a frame's size") }
    }

    /// Ends the frame into `output`; returns true when all of it is out, false when `output`
    /// filled up first (make room and call again).
    mutating func end(into output: inout ZSTD_outBuffer) throws(ZstdError) -> Bool {
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        let remaining = ZSTD_compressStream2(context, &output, &input, ZSTD_e_end)
        if ZSTD_isError(remaining) != 0 { throw ZstdError(code: remaining, doing: "ending the frame") }
        return remaining == 0
    }
}

/// A libzstd failure, in its own words.
struct ZstdError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and, where it helps, what to do.
    var message: String

    /// Wraps a libzstd error code returned while `doing` something.
    init(code: Int, doing: String) {
        message = "zstd failed \(doing): \(String(cString: ZSTD_getErrorName(code)))"
    }

    /// An error with our own explanation.
    init(message: String) {
        self.message = message
    }

    /// The message.
    var description: String { message }
}
