import SystemSupport
import CZstd
import Crypto
import Glibc

/// Where an ``ArchiveWriter`` sends its tar bytes: cut into content-defined chunks, each compressed
/// by libzstd as its own frame straight into large page-aligned buffers, hashed there, and handed to
/// an ``ArchiveOutputThread`` that writes them while the writer goes on building the tar stream.
///
/// With chunking on, the chunker (``ContentDefinedChunker``) sees every tar byte; at each boundary the current zstd frame
/// ends and the next chunk starts a new one, and the chunk's record (``ArchiveChunk``: its frame's
/// range in the archive, its range in the tar stream, the SHA-256 of its tar bytes) joins ``chunks``.
/// The same hash thread also hashes each regular file's data (``startFile(size:)``, ``fileSHA256s``).
/// Concatenated frames are still one standard `tar.zst` to every zstd reader. A chunked archive has
/// no archive-wide SHA-256 (clients verify each chunk instead).
///
/// libarchive writes an *uncompressed* tar through a C callback that calls ``write(_:)`` on the
/// writer's thread. zstd's output lands directly in the buffer the output thread will write (no
/// copy of the compressed bytes). Without chunking, each piece is hashed right after zstd wrote it,
/// while it is still in the cache; that gives the archive's SHA-256 without reading the file back.
/// Owned by one writer and used on its thread only; the output thread owns whatever buffer it was handed.
final class ArchiveSink {
    /// What ``finish()`` reports.
    struct Outcome: Sendable {
        /// Compressed bytes produced (and hashed).
        var size: Int64
        /// Lowercase hex SHA-256 of those bytes; `nil` for a chunked archive.
        var sha256: String?
        /// `errno` of the first failed `write(2)`, 0 when none failed.
        var failureErrno: Int32
    }

    /// The archive path for messages.
    let displayPath: String
    private let output: ArchiveOutputThread
    private var compressor: ZstdFrameCompressor
    /// The buffer being filled, `nil` once the sink stopped.
    private var current: PageAlignedBuffer?
    /// Bytes of ``current`` filled (and hashed) so far.
    private var filled = 0
    /// The archive's SHA-256 so far; `nil` with chunking.
    private var hasher: SHA256?
    private var size: Int64 = 0
    /// `nil`: one frame, no chunk index.
    private var chunker: ContentDefinedChunker?
    /// Hands each chunk's tar bytes to the thread that hashes them (with chunking only).
    private var hashFeeder: ChunkHashThread.Feeder?
    /// Where the current chunk's frame starts in the archive.
    private var chunkStart: Int64 = 0
    /// Where the current chunk starts in the tar stream.
    private var chunkStreamStart: Int64 = 0
    /// Tar-stream bytes received so far: after a header, where its entry's data starts.
    private(set) var streamOffset: Int64 = 0
    /// Tar-stream bytes chunked and compressed so far: behind ``streamOffset`` by the bytes of an entry being tried.
    private var processedOffset: Int64 = 0
    /// An entry whose bytes are held back until the next boundary settles whether its group can take it
    /// (``groupBoundary(entryBytes:budget:)``), with the budget it is tried against; `nil` when none is.
    private var tried: (bytes: [UInt8], budget: FileGroupBudget)?
    /// Compresses tried entries on their own; made at the first one.
    private var trial: EntryTrial?
    /// The zstd level, for the trial.
    private let compressionLevel: Int
    /// The dictionary every frame is compressed with (stored first in the archive), `nil` for none.
    private let dictionary: FrameDictionary?
    /// Where the tar stream stood at the current chunk's last flush (or its start): the bytes after it are
    /// still inside zstd, so the frame's size so far is known only up to them.
    private var flushedStreamOffset: Int64 = 0
    /// The chunks completed so far, in order.
    private(set) var chunks: [ArchiveChunk] = []
    /// With chunking, the SHA-256 of each regular file's data, in stream order, once the sink stopped.
    private(set) var fileSHA256s: [StoredSHA256] = []
    /// The first compression failure, if any.
    private(set) var compressionError: ZstdError?
    /// The outcome once the sink stopped.
    private var outcome: Outcome?

    /// Starts the output thread writing a zstd frame at `compressionLevel` to `fileDescriptor`
    /// (not closed by the sink).
    ///
    /// With chunking and a `dictionary`, the archive starts with the dictionary's stored frame and every chunk's
    /// frame is compressed with it.
    ///
    /// - Throws: ``ZstdError`` for a level libzstd does not know (nothing is started then).
    init(
        fileDescriptor: Int32, displayPath: String, compressionLevel: Int, chunking: ChunkingParameters?,
        expectedFiles: Int = 0, dictionary: FrameDictionary? = nil
    ) throws(ZstdError) {
        self.displayPath = displayPath
        self.compressionLevel = compressionLevel
        self.dictionary = chunking == nil ? nil : dictionary
        compressor = try ZstdFrameCompressor(level: compressionLevel)
        if let dictionary = self.dictionary { try compressor.use(dictionary: dictionary.bytes) }
        chunker = chunking.map { ContentDefinedChunker(parameters: $0) }
        if chunking != nil { hashFeeder = ChunkHashThread.Feeder(ChunkHashThread(expectedFiles: expectedFiles)) } else { hasher = SHA256() }
        output = ArchiveOutputThread(fileDescriptor: fileDescriptor)
        current = output.spare.receive()
        if let dictionary = self.dictionary {  // the archive's first bytes; the first chunk starts after them
            dictionary.storedFrame.withUnsafeBytes { store($0) }
            chunkStart = size
        }
    }

    /// Copies `bytes` into the output as they are (the dictionary's stored frame), outside any chunk.
    private func store(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while !rest.isEmpty {
            let count = min(rest.count, current!.count - filled)
            UnsafeMutableRawBufferPointer(rebasing: current!.bytes[filled..<(filled + count)]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: rest[0..<count]))
            advance(to: filled + count)
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
    }

    deinit {
        _ = stop()  // an abandoned archive: no end of frame, but stop the thread and free the buffers
    }

    /// `errno` of the first failed `write(2)` (e.g. `ENOSPC`), 0 when none failed.
    var failureErrno: Int32 { outcome?.failureErrno ?? output.failureErrno }

    /// With chunking: a regular file's `size` data bytes start with the next byte written; its SHA-256
    /// joins ``fileSHA256s``.
    func startFile(size: Int64) {
        hashFeeder?.startFile(at: streamOffset, size: size)
    }

    /// Chunks and compresses `buffer` into the output buffers; false once writing or compressing failed.
    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        streamOffset += Int64(buffer.count)
        guard chunker != nil else {
            processedOffset += Int64(buffer.count)
            return compress(buffer)
        }
        if tried != nil {
            tried!.bytes.append(contentsOf: buffer)
            return true
        }
        return process(buffer)
    }

    /// Chunks and compresses `buffer`, the tar bytes after ``processedOffset``.
    private func process(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var rest = buffer
        while let cut = chunker!.nextBoundary(in: rest) {
            guard take(UnsafeRawBufferPointer(rebasing: rest[0..<cut])), endChunk() else { return false }
            rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
        }
        return take(rest)
    }

    /// Before an entry of `entryBytes` tar bytes: settles the entry tried before it, then decides where this one goes.
    /// It joins the current group when even its worst case fits `budget`, flushing the frame first when only the
    /// frame's exact size can tell. When its worst case still does not fit, the entry is tried: its bytes are held
    /// back until the next boundary, which compresses them on their own (``EntryTrial``) and lets them join when that
    /// fits, else ends the chunk before them. So a group ends only when the next entry does not fit. False once
    /// writing or compressing failed.
    func groupBoundary(entryBytes: Int64, budget: FileGroupBudget) -> Bool {
        guard chunker != nil else { return true }
        guard settleTriedEntry() else { return false }
        while true {
            let known = size - chunkStart
            let unflushed = processedOffset - max(chunkStreamStart, flushedStreamOffset)
            switch budget.decide(known: known, unflushed: unflushed, entryBytes: entryBytes) {
            case .join: return true
            case .cut:
                // Tried only when it may fit, at the group's own ratio with a quarter to spare: a trial of an entry
                // that cannot (incompressible bytes, or no room left) is a compression for nothing.
                let ratioed = entryBytes * known / max(1, processedOffset - chunkStreamStart)
                guard budget.fits(known: known, alone: ratioed + ratioed / 4) else { return cut() }
                tried = ([], budget)
                return true
            case .measure: guard flushFrame() else { return false }
            }
        }
    }

    /// The entry held back since the last boundary joins its group when its bytes, compressed on their own, fit in
    /// what the budget leaves (the frame was flushed just before it, so its size is exact); otherwise the chunk ends
    /// before it. Either way its bytes are then chunked and compressed. False once writing or compressing failed.
    private func settleTriedEntry() -> Bool {
        guard let (bytes, budget) = tried else { return true }
        tried = nil
        let alone: Int64
        do {
            if trial == nil { trial = try EntryTrial(level: min(compressionLevel, 1), dictionary: dictionary) }  // see EntryTrial
            let trial = trial!
            alone = try bytes.withUnsafeBytes { view in
                Result { () throws(ZstdError) in try trial.compressedSize(view) }
            }.get()
        } catch {
            compressionError = error
            return false
        }
        if !budget.fits(known: size - chunkStart, alone: alone) {
            guard endChunk() else { return false }
            chunker!.startChunk()
        }
        return bytes.withUnsafeBytes { process($0) }
    }

    /// Compresses and writes out everything given to the current frame without ending it.
    private func flushFrame() -> Bool {
        guard output.failureErrno == 0, compressionError == nil, current != nil else { return false }
        do {
            var done = false
            while !done {
                var out = outBuffer()
                done = try compressor.flush(into: &out)
                advance(to: out.pos)
            }
        } catch {
            compressionError = error
            return false
        }
        flushedStreamOffset = processedOffset
        return true
    }

    /// Ends the current chunk here (no-op without chunking or at a chunk's start); false once writing failed.
    func cut() -> Bool {
        guard chunker != nil else { return true }
        guard settleTriedEntry(), endChunk() else { return false }
        chunker!.startChunk()
        return true
    }

    /// Hashes and compresses `buffer`, all of it inside the current chunk.
    private func take(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard !buffer.isEmpty else { return true }
        hashFeeder?.add(buffer)
        processedOffset += Int64(buffer.count)
        return compress(buffer)
    }

    /// Ends the current chunk's frame and records it; a chunk with no bytes is not a chunk. Without
    /// chunking this ends the archive's one frame and records nothing.
    private func endChunk() -> Bool {
        guard processedOffset > chunkStreamStart else { return true }
        guard endFrame() else { return false }
        guard chunker != nil else { return true }
        hashFeeder?.endChunk()
        chunks.append(ArchiveChunk(  // its SHA-256 arrives from the hash thread in `stop()`
            offset: chunkStart, length: size - chunkStart, uncompressedOffset: chunkStreamStart,
            uncompressedLength: processedOffset - chunkStreamStart, sha256: ""))
        chunkStart = size
        chunkStreamStart = processedOffset
        return true
    }

    /// Compresses `buffer` into the output buffers; false once writing or compressing failed.
    private func compress(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard output.failureErrno == 0, compressionError == nil, current != nil else { return false }
        var input = ZSTD_inBuffer(src: buffer.baseAddress, size: buffer.count, pos: 0)
        while input.pos < input.size {
            var out = outBuffer()
            do {
                try compressor.compress(&input, into: &out)
            } catch {
                compressionError = error
                return false
            }
            advance(to: out.pos)
        }
        return true
    }

    /// Ends the last chunk, writes what is left, waits for the output thread and returns the
    /// outcome (idempotent).
    func finish() -> Outcome {
        if outcome == nil, compressionError == nil, output.failureErrno == 0 { _ = settleTriedEntry() && endChunk() }
        return stop()
    }

    /// Ends the current zstd frame into the output buffers; false when compressing failed.
    private func endFrame() -> Bool {
        guard output.failureErrno == 0, compressionError == nil, current != nil else { return false }
        do {
            var done = false
            while !done {
                var out = outBuffer()
                done = try compressor.end(into: &out)
                advance(to: out.pos)
            }
            return true
        } catch {
            compressionError = error
            return false
        }
    }

    /// Hands over the current buffer's bytes, waits for the output thread and frees the buffers
    /// (idempotent).
    private func stop() -> Outcome {
        if let outcome { return outcome }
        if let feeder = hashFeeder.take() {
            let digests = feeder.finish()
            for (index, digest) in zip(chunks.indices, digests.chunks) { chunks[index].storedSHA256 = digest }
            fileSHA256s = digests.files
        }
        output.work.send(.last(current!, count: filled))
        current = nil
        let failureErrno = output.done.receive()
        output.deallocateBuffers()
        let result = Outcome(size: size, sha256: hasher?.finalizeHex(), failureErrno: failureErrno)
        outcome = result
        return result
    }

    /// The free part of the current buffer, for zstd to fill.
    private func outBuffer() -> ZSTD_outBuffer {
        ZSTD_outBuffer(dst: current!.bytes.baseAddress, size: current!.count, pos: filled)
    }

    /// Hashes what zstd just wrote (up to `position`; one frame only); a full buffer goes to the output
    /// thread and a spare one takes its place.
    private func advance(to position: Int) {
        if position > filled {
            hasher?.update(bufferPointer: UnsafeRawBufferPointer(rebasing: current!.bytes[filled..<position]))
            size += Int64(position - filled)
            filled = position
        }
        guard filled == current!.count else { return }
        output.work.send(.full(current!))
        current = output.spare.receive()
        filled = 0
    }
}
