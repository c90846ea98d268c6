import CArchive
import Glibc

/// Writes a reproducible pax (restricted) tar stream, zstd-compressed, to a file descriptor.
///
/// Every header is normalized: the caller's modification time with zero nanoseconds, uid/gid 0,
/// no user or group names, no atime/ctime/birthtime, no xattrs or ACLs, and names stored as UTF-8
/// (`hdrcharset=UTF-8`, independent of the process locale). libarchive builds the *uncompressed*
/// tar stream; it is cut into content-defined chunks and libzstd compresses each straight into the
/// output buffers as its own frame (``ArchiveChunk``: the chunk index a client fetches and verifies
/// by). Any zstd reader sees one `tar.zst`. A one-frame archive's compressed bytes are hashed on their
/// way to the file (``FileDigest``), so nothing is read back; writing runs on a second thread while
/// the caller's thread compresses (see `ArchiveSink` and `ArchiveOutputThread`).
///
/// The writer is noncopyable: one owner, freed exactly once; ``finish()`` consumes it.
///
/// ```swift
/// var writer = try ArchiveWriter(fileDescriptor: fd, displayPath: "levels-1.0.tar.zst")
/// try writer.writeHeader(ArchiveEntryHeader(pathBytes: Array("Contents".utf8), kind: .directory,
///                                           size: 0, permissions: 0o755), modificationTime: 946684800)
/// let digest = try writer.finish()
/// ```
///
/// Related libarchive documentation: <https://github.com/libarchive/libarchive/wiki/ManPageArchiveWrite3>
public struct ArchiveWriter: ~Copyable {
    /// The default zstd level: fast, and still a good ratio for data content.
    public static let defaultCompressionLevel = 3

    private let handle: OpaquePointer
    private let entry: OpaquePointer
    private let sink: Unmanaged<ArchiveSink>

    /// Starts an archive on `fileDescriptor` (not closed by the writer).
    ///
    /// - Throws: ``ArchiveError`` when libarchive or libzstd cannot be set up (e.g. a zstd level
    ///   outside libzstd's range).
    /// The corresponding C functions are `archive_write_new`, `archive_write_open2` and `ZSTD_createCCtx`.
    public init(
        fileDescriptor: Int32, displayPath: String, compressionLevel: Int = ArchiveWriter.defaultCompressionLevel
    ) throws(ArchiveError) {
        try self.init(
            fileDescriptor: fileDescriptor, displayPath: displayPath, compressionLevel: compressionLevel,
            chunking: nil)
    }

    /// Starts an archive cut into chunks by `chunking`, one zstd frame each (`nil`: one frame; see
    /// ``init(fileDescriptor:displayPath:compressionLevel:)``); `expectedFiles`, the regular files to come, sizes
    /// the list of their digests once.
    package init(
        fileDescriptor: Int32, displayPath: String, compressionLevel: Int, chunking: ChunkingParameters?,
        expectedFiles: Int = 0, dictionary: FrameDictionary? = nil
    ) throws(ArchiveError) {
        let sinkObject: ArchiveSink
        do {
            sinkObject = try ArchiveSink(
                fileDescriptor: fileDescriptor, displayPath: displayPath, compressionLevel: compressionLevel,
                chunking: chunking, expectedFiles: expectedFiles, dictionary: dictionary)
        } catch {
            throw ArchiveError(message: error.message, path: displayPath)
        }
        let sink = Unmanaged.passRetained(sinkObject)
        guard let handle = archive_write_new() else {
            sink.release()
            throw ArchiveError(message: "libarchive could not allocate a writer", path: displayPath)
        }
        guard let entry = archive_entry_new() else {
            archive_write_free(handle)
            sink.release()
            throw ArchiveError(message: "libarchive could not allocate an entry", path: displayPath)
        }
        func fail(_ what: String) -> ArchiveError {
            let error = ArchiveError(
                errno: archive_errno(handle),
                message: "\(what): \(archive_error_string(handle).map { String(cString: $0) } ?? "unknown error")",
                path: displayPath)
            archive_entry_free(entry)
            archive_write_free(handle)
            sink.release()
            return error
        }
        guard archive_write_set_format_pax_restricted(handle) == ARCHIVE_OK else { throw fail("pax format") }
        // No libarchive filter: the sink compresses. No padding of the last block and no re-blocking
        // either: the tar bytes reach the sink as libarchive produces them (file data without a copy)
        // and the end of the stream is exactly the tar's end-of-archive blocks.
        guard archive_write_set_bytes_in_last_block(handle, 1) == ARCHIVE_OK else { throw fail("block size") }
        guard archive_write_set_bytes_per_block(handle, 0) == ARCHIVE_OK else { throw fail("block size") }
        // The name conversion is bound to the locale current when it is created: create it under UTF-8.
        guard UTF8Locale.run({ archive_write_set_options(handle, "pax:hdrcharset=UTF-8") }) == ARCHIVE_OK else {
            throw fail("UTF-8 header charset")
        }
        let status = UTF8Locale.run { archive_write_open2(
            handle, sink.toOpaque(), nil,
            { _, context, buffer, count in
                guard let context, let buffer else { return -1 }
                let sink = Unmanaged<ArchiveSink>.fromOpaque(context).takeUnretainedValue()
                return sink.write(UnsafeRawBufferPointer(start: buffer, count: count)) ? count : -1
            }, nil, nil) }
        guard status == ARCHIVE_OK else { throw fail("open") }
        self.handle = handle
        self.entry = entry
        self.sink = sink
    }

    deinit {
        archive_entry_free(entry)
        archive_write_free(handle)
        sink.release()
    }

    /// Writes one entry header; follow a regular file's header with exactly `header.size` data bytes.
    ///
    /// Only the header's path, kind, size, permissions and link target are used; ownership is
    /// always 0/0 with empty names. The path is stored as UTF-8. Directories get a trailing `/`.
    /// The corresponding C function is `archive_write_header`.
    public mutating func writeHeader(_ header: ArchiveEntryHeader, modificationTime: Int64) throws(ArchiveError) {
        archive_entry_clear(entry)
        UTF8Locale.run {
            (header.pathBytes + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { archive_entry_set_pathname_utf8(entry, $0.baseAddress) }
            }
        }
        let type: UInt32
        switch header.kind {
        case .regular: type = 0o100000
        case .directory: type = 0o040000
        case .symlink: type = 0o120000
        case .fifo: type = 0o010000
        case .characterDevice: type = 0o020000
        case .blockDevice: type = 0o060000
        case .socket: type = 0o140000
        case .hardlink: type = 0o100000
        case .unknown(let bits): type = bits
        }
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, mode_t(header.permissions & 0o7777))
        archive_entry_set_size(entry, header.kind == .regular ? header.size : 0)
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        if let target = header.linkTarget {
            UTF8Locale.run {
                if header.kind == .hardlink {
                    archive_entry_set_hardlink_utf8(entry, target)
                } else {
                    archive_entry_set_symlink_utf8(entry, target)
                }
            }
        }
        let status = UTF8Locale.run { archive_write_header(handle, entry) }
        guard status == ARCHIVE_OK else { throw error(fallback: "cannot write header for \(header.path)") }
        if header.kind == .regular { sink.takeUnretainedValue().startFile(size: header.size) }
    }

    /// Appends data to the current entry. The corresponding C function is `archive_write_data`.
    public mutating func writeData(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard !buffer.isEmpty else { return }
        let count = UTF8Locale.run { archive_write_data(handle, buffer.baseAddress, buffer.count) }
        guard count == buffer.count else { throw error(fallback: "cannot write entry data") }
    }

    /// Closes the archive (end-of-archive blocks, end of the zstd frame) and returns its size and SHA-256.
    ///
    /// - Throws: ``ArchiveError`` when the final writes fail (e.g. `ENOSPC`).
    /// The corresponding C functions are `archive_write_close`, `archive_write_free` and
    /// `ZSTD_compressStream2(…, ZSTD_e_end)`.
    public consuming func finish() throws(ArchiveError) -> FileDigest {
        let finished = try finishIndexed()
        // A writer made by the public initializer writes one frame, which is always hashed.
        return FileDigest(sha256: finished.sha256 ?? "", length: finished.size)
    }

    /// Where the next byte of the tar stream goes: called right after ``writeHeader(_:modificationTime:)``
    /// of a regular file, where that file's data starts (libarchive hands every byte over unbuffered).
    package var streamOffset: Int64 { sink.takeUnretainedValue().streamOffset }

    /// Ends the current chunk where the tar stream stands (where a large file's data begins or ends), so that the
    /// data has chunks of its own: an update that changes it, or the entries around it, fetches no other bytes.
    package mutating func cutChunk() throws(ArchiveError) {
        guard sink.takeUnretainedValue().cut() else { throw error(fallback: "cannot end a chunk") }
    }

    /// Before an entry of `entryBytes` tar bytes (``FileGroupBudget/entryBytes(dataSize:dataInGroup:)``): ends the
    /// current chunk here when the entry would take its frame past `budget`, so small files are grouped into
    /// frames of a bounded compressed size, cut between entries. No-op without chunking.
    package mutating func groupBoundary(entryBytes: Int64, budget: FileGroupBudget) throws(ArchiveError) {
        guard sink.takeUnretainedValue().groupBoundary(entryBytes: entryBytes, budget: budget) else {
            throw error(fallback: "cannot end a chunk")
        }
    }

    /// What ``finishIndexed()`` returns.
    package struct Finished {
        /// Archive bytes written.
        package var size: Int64
        /// The archive's SHA-256; `nil` for a chunked archive.
        package var sha256: String?
        /// The chunk index; empty without chunking.
        package var chunks: [ArchiveChunk]
        /// With chunking, each regular file's SHA-256 in header order (hashed with its chunks); else empty.
        package var fileSHA256s: [StoredSHA256]
    }

    /// ``finish()``, with the archive's chunk index and file hashes (chunked) instead of its SHA-256.
    package consuming func finishIndexed() throws(ArchiveError) -> Finished {
        let status = UTF8Locale.run { archive_write_close(handle) }
        let failure: ArchiveError? = status == ARCHIVE_OK ? nil : error(fallback: "cannot finish archive")
        let sinkObject = sink.takeRetainedValue()
        archive_entry_free(entry)
        archive_write_free(handle)
        discard self
        if let failure { throw failure }
        let outcome = sinkObject.finish()
        if let failure = Self.failure(of: sinkObject, errno: outcome.failureErrno) { throw failure }
        return Finished(
            size: outcome.size, sha256: outcome.sha256, chunks: sinkObject.chunks, fileSHA256s: sinkObject.fileSHA256s)
    }

    /// What went wrong downstream of libarchive, if anything: the compressor, or a write that failed with `errno`.
    private static func failure(of sink: ArchiveSink, errno: Int32) -> ArchiveError? {
        if let compression = sink.compressionError {
            return ArchiveError(message: compression.message, path: sink.displayPath)
        }
        guard errno != 0 else { return nil }
        return ArchiveError(errno: errno, message: "write failed: \(String(cString: strerror(errno)))", path: sink.displayPath)
    }

    private func error(fallback: String) -> ArchiveError {
        let sinkObject = sink.takeUnretainedValue()
        if let failure = Self.failure(of: sinkObject, errno: sinkObject.failureErrno) { return failure }
        return ArchiveError(
            errno: archive_errno(handle),
            message: archive_error_string(handle).map { String(cString: $0) } ?? fallback,
            path: sinkObject.displayPath)
    }
}
