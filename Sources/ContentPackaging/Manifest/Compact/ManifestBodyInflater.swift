import CZstd
import Glibc

/// Decompresses a compact manifest's frame a window at a time, from memory or straight from its file, so a
/// reader never holds the body whole (a million files: 53 MB) nor, from a file, the compressed bytes (36 MB).
///
/// Every refusal of the whole-body decoder holds: the body may not decode to more than the envelope declares
/// (the output is capped one byte past it), nor to less, nor end without its frame's end and checksum, nor leave
/// bytes after the frame.
final class ManifestBodyInflater {
    /// Where the frame's bytes come from.
    enum Source {
        /// The frame, in memory the caller keeps alive while the inflater is used.
        case memory(UnsafeRawBufferPointer)
        /// The frame in an open file: `length` bytes from `offset` (the descriptor is the caller's).
        case file(descriptor: Int32, offset: Int, length: Int)
    }

    /// The largest single field a reader asks for at once, with room to spare: paths are at most
    /// ``PathRules/maxPathBytes`` and header strings ``CompactManifestFormat/maxHeaderString``.
    static let largestField = 8 << 10
    /// Body bytes decompressed per refill.
    static let windowSize = 256 << 10
    /// Compressed bytes read from a file at a time.
    static let inputSize = 128 << 10

    private let source: Source
    /// The body length the envelope declares.
    let declared: Int
    /// Where the frame starts in the manifest file, for messages.
    private let frameOffset: Int
    private let context: OpaquePointer
    /// Decompressed bytes: the reader's unread tail, then new bytes.
    private let window: UnsafeMutableRawBufferPointer
    /// Compressed bytes read from a file and not yet decompressed (file sources only).
    private let inputBuffer: UnsafeMutableRawBufferPointer?
    private var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
    /// Frame bytes handed to libzstd so far.
    private var frameRead = 0
    /// Body bytes decompressed so far.
    private(set) var produced = 0
    /// Whether libzstd reported the frame's end (its checksum checked).
    private var frameEnded = false

    /// An inflater of the frame in `source`, which decodes to `declared` bytes; `frameOffset` is where the frame
    /// starts in the manifest.
    /// - Throws: ``ManifestFormatError`` when libzstd cannot allocate or the frame's own header declares another
    ///   length.
    init(_ source: Source, declared: Int, frameOffset: Int) throws(ManifestFormatError) {
        self.source = source
        self.declared = declared
        self.frameOffset = frameOffset
        guard let context = ZSTD_createDCtx() else {
            throw ManifestFormatError(field: "body", offset: frameOffset, inBody: false, reason: "libzstd could not allocate a decompression context (out of memory?)")
        }
        self.context = context
        // The frames `pack` writes use a 1 MiB window; a frame asking for more than 64 MiB is refused before
        // libzstd allocates it (its default allows 128 MiB).
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 26)
        window = .allocate(byteCount: Self.windowSize + Self.largestField, alignment: 16)
        switch source {
        case .memory(let frame):
            inputBuffer = nil
            input = ZSTD_inBuffer(src: frame.baseAddress, size: frame.count, pos: 0)
            frameRead = frame.count
        case .file:
            inputBuffer = .allocate(byteCount: Self.inputSize, alignment: 16)
        }
        try checkFrameHeader()
    }

    deinit {
        ZSTD_freeDCtx(context)
        window.deallocate()
        inputBuffer?.deallocate()
    }

    /// Moves `window[keep...]` (the reader's unread bytes, `count` of them in all) to the window's start and
    /// decompresses after them until at least `needed` bytes are there or the body is all out; returns the window.
    /// - Throws: ``ManifestFormatError`` when the frame is damaged or ends before the declared length.
    func refill(keeping keep: Int, of count: Int, needing needed: Int) throws(ManifestFormatError) -> UnsafeRawBufferPointer {
        precondition(needed <= Self.largestField, "a field of at most \(Self.largestField) bytes")
        let kept = count - keep
        if kept > 0, keep > 0 { window.baseAddress!.copyMemory(from: window.baseAddress! + keep, byteCount: kept) }
        var filled = kept
        // At least a window's worth (fewer refills), never past one byte beyond the declared length.
        while produced < declared, filled < needed || filled < Self.windowSize {
            guard !frameEnded else {
                throw refusal("decompresses to \(produced) bytes, not the \(declared) the envelope declares; the manifest is damaged — fetch or pack it again")
            }
            let out = try step(into: window.baseAddress! + filled, room: min(window.count - filled, declared + 1 - produced))
            filled += out
            produced += out
        }
        guard produced <= declared else {
            throw refusal("decompresses past the \(declared) bytes the envelope declares; the manifest is damaged — fetch or pack it again")
        }
        return UnsafeRawBufferPointer(start: window.baseAddress, count: filled)
    }

    /// Checks that the body ends where the envelope said, with the frame's end and checksum, and nothing after it.
    /// - Throws: ``ManifestFormatError`` otherwise.
    func finish() throws(ManifestFormatError) {
        var spare: UInt8 = 0
        while !frameEnded {
            let out = try withUnsafeMutableBytes(of: &spare) { (room) throws(ManifestFormatError) -> Int in
                try step(into: room.baseAddress!, room: 1)
            }
            guard out == 0 else {
                throw refusal("decompresses past the \(declared) bytes the envelope declares; the manifest is damaged — fetch or pack it again")
            }
        }
        let trailing = input.size - input.pos + (totalFrameBytes - frameRead)
        guard trailing == 0 else {
            throw refusal("is followed by \(trailing) bytes that are not part of its zstd frame; the manifest is damaged — fetch or pack it again")
        }
    }

    /// What is wrong with the rest of the frame, if anything: decompresses it to its end (its checksum checked),
    /// discarding the bytes. When a body fails to decode, damage in transit (a checksum that fails) is the better
    /// explanation than a body the packer wrote wrong.
    func damageAhead() -> ManifestFormatError? {
        while !frameEnded {
            do {
                let out = try step(into: window.baseAddress!, room: window.count)
                produced += out
            } catch {
                return error
            }
        }
        return nil
    }

    /// One `ZSTD_decompressStream` call into `room` bytes at `target`, reading more of a file first when the
    /// input is used up; returns the bytes produced.
    private func step(into target: UnsafeMutableRawPointer, room: Int) throws(ManifestFormatError) -> Int {
        if input.pos == input.size { try readMore() }
        if input.pos == input.size, !frameEnded {
            throw refusal("ends before its zstd frame does (\(produced) of \(declared) bytes decompressed); the manifest is cut short — fetch or pack it again")
        }
        var output = ZSTD_outBuffer(dst: target, size: room, pos: 0)
        let hint = ZSTD_decompressStream(context, &output, &input)
        if ZSTD_isError(hint) != 0 {
            let name = String(cString: ZSTD_getErrorName(hint))
            throw refusal("is not a zstd frame of the declared \(declared) bytes (\(name)); the manifest is damaged, cut short or decompresses past its declared length — fetch or pack it again")
        }
        if hint == 0 { frameEnded = true }
        return output.pos
    }

    /// The frame's length in its source.
    private var totalFrameBytes: Int {
        switch source {
        case .memory(let frame): frame.count
        case .file(_, _, let length): length
        }
    }

    /// Reads the next piece of a file's frame into the input buffer (nothing for a frame in memory).
    private func readMore() throws(ManifestFormatError) {
        guard case .file(let descriptor, let offset, let length) = source, let inputBuffer, frameRead < length else { return }
        let count = min(inputBuffer.count, length - frameRead)
        var got = 0
        while got < count {
            let result = pread(descriptor, inputBuffer.baseAddress! + got, count - got, off_t(offset + frameRead + got))
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                let reason = result < 0 ? String(cString: strerror(errno)) : "the file ended"
                throw refusal("cannot be read at byte \(offset + frameRead + got): \(reason); fetch the manifest again")
            }
            got += result
        }
        frameRead += count
        input = ZSTD_inBuffer(src: inputBuffer.baseAddress, size: count, pos: 0)
    }

    /// The frame's header, when it states a content size, must state the declared length.
    private func checkFrameHeader() throws(ManifestFormatError) {
        var header = [UInt8](repeating: 0, count: 18)  // ZSTD_FRAMEHEADERSIZE_MAX
        let available: Int
        switch source {
        case .memory(let frame):
            available = min(frame.count, header.count)
            header.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[0..<available])) }
        case .file(let descriptor, let offset, let length):
            let count = min(length, header.count)
            available = header.withUnsafeMutableBytes { max(0, pread(descriptor, $0.baseAddress, count, off_t(offset))) }
        }
        let size = header.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, available) }
        if size == ZSTD_CONTENTSIZE_UNKNOWN {
            throw refusal("the zstd frame does not say how many bytes it holds (the format requires it); the manifest was not written by `iapcontent pack` — pack it again")
        }
        if size != ZSTD_CONTENTSIZE_ERROR, size != UInt64(declared) {
            throw refusal("the zstd frame says it holds \(size) bytes but the envelope declares \(declared); the manifest is damaged — fetch or pack it again")
        }
    }

    /// A refusal of the body, at the frame's start.
    private func refusal(_ reason: String) -> ManifestFormatError {
        ManifestFormatError(field: "body", offset: frameOffset, inBody: false, reason: reason)
    }
}
