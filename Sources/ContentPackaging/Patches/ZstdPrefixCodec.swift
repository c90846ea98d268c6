import CZstd
internal import Foundation

/// One zstd frame compressed against a prefix — the bytes of an older version, referenced as `zstd
/// --patch-from` does (`ZSTD_CCtx_refPrefix`) — and its decoding, bounded to the size the frame must have.
enum ZstdPrefixCodec {
    /// `data` as one frame (content size and checksum in it) at `level`, compressed against `prefix` when given.
    static func compress(_ data: Data, prefix: Data?, level: Int32) throws(PatchError) -> Data {
        guard let context = ZSTD_createCCtx() else { throw PatchError("libzstd could not allocate a compression context (out of memory?)") }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
        // Long enough to reach back over the whole prefix, as `--patch-from` sets it; never past the decoder's cap.
        let span = (prefix?.count ?? 0) + data.count
        let log = min(PatchFormat.windowLog, max(10, Int32(log2(Double(max(span, 1))).rounded(.up))))
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, log)
        if (prefix?.count ?? 0) > 0 { ZSTD_CCtx_setParameter(context, ZSTD_c_enableLongDistanceMatching, 1) }
        var output = Data(count: ZSTD_compressBound(data.count))
        let written: Int = prefix.withUnsafeBytesIfAny { prefixBytes in
            if let prefixBytes { ZSTD_CCtx_refPrefix(context, prefixBytes.baseAddress, prefixBytes.count) }
            return data.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    ZSTD_compress2(context, target.baseAddress, target.count, source.baseAddress, source.count)
                }
            }
        }
        guard ZSTD_isError(written) == 0 else {
            throw PatchError("libzstd could not compress (\(String(cString: ZSTD_getErrorName(written))))")
        }
        output.count = written
        return output
    }

    /// Decodes `frame`, which must be one whole zstd frame of exactly `size` bytes of content, against `prefix`.
    /// - Throws: ``PatchError`` at `offset` (where the frame starts in the patch) naming `what` when the frame is
    ///   damaged, declares or decodes to another size, asks for a larger window than ``PatchFormat/windowLog``, or
    ///   needs a prefix other than the one given (its checksum then fails).
    static func decompress(_ frame: Data, prefix: Data?, size: Int, what: String, offset: Int) throws(PatchError) -> Data {
        let declared = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        guard declared == UInt64(size) else {
            throw PatchError("\(what): its frame declares \(declared >= UInt64(ZSTD_CONTENTSIZE_ERROR) ? "no valid content size" : "\(declared) bytes"), the manifest says \(size)", offset: offset)
        }
        guard let context = ZSTD_createDCtx() else { throw PatchError("libzstd could not allocate a decompression context (out of memory?)") }
        defer { ZSTD_freeDCtx(context) }
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, PatchFormat.windowLog)
        var output = Data(count: max(size, 1))
        let result: Int = prefix.withUnsafeBytesIfAny { prefixBytes in
            if let prefixBytes { ZSTD_DCtx_refPrefix(context, prefixBytes.baseAddress, prefixBytes.count) }
            return frame.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    ZSTD_decompressDCtx(context, target.baseAddress, size, source.baseAddress, source.count)
                }
            }
        }
        guard ZSTD_isError(result) == 0 else {
            throw PatchError("\(what): its frame does not decode (\(String(cString: ZSTD_getErrorName(result)))); the patch is damaged or made against other files — the update fetches the changed chunks instead", offset: offset)
        }
        guard result == size else { throw PatchError("\(what): its frame decodes to \(result) bytes, the manifest says \(size)", offset: offset) }
        output.count = size
        return output
    }
}

extension Optional where Wrapped == Data {
    /// Calls `body` with the bytes of the data, or with `nil` when there is none (or it is empty).
    fileprivate func withUnsafeBytesIfAny<Result>(_ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard let data = self, !data.isEmpty else { return body(nil) }
        return data.withUnsafeBytes { body($0) }
    }
}
