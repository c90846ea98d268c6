import CArchive
import Foundation

/// Streams entries out of a `.tar.zst` (or plain `.tar`) archive, one header and one data block at a time.
///
/// Only libarchive's tar reader and zstd filter are registered (or, for `Format.xar` and
/// `Format.cpioGzip`, that one format and its filter) — never the `_all` functions, which would expose
/// every parser (RAR, ISO9660, …) and external-program filters to untrusted input.
/// Memory stays flat: data comes out in caller-sized blocks.
///
/// The reader is noncopyable: one owner, freed exactly once.
///
/// ```swift
/// var reader = try ArchiveReader(path: "levels-1.0.tar.zst")
/// while let header = try reader.nextHeader() {
///     var buffer = [UInt8](repeating: 0, count: 1 << 16)
///     while case let count = try buffer.withUnsafeMutableBytes({ try reader.read(into: $0) }), count > 0 {
///         consume(buffer[..<count])
///     }
/// }
/// ```
public struct ArchiveReader: ~Copyable {
    private let handle: OpaquePointer
    private let path: String
    /// Retained while the reader lives when the bytes come from an ``ArchiveByteSource``.
    private let source: ArchiveSourceBox?
    /// Bytes of the current entry handed out by ``readBlock()`` so far.
    private var entryOffset: Int64 = 0

    /// The archive formats a reader can be opened for; each registers exactly one format and its filters.
    package enum Format: Sendable {
        /// tar, plain or zstd-compressed: hosted-content archives.
        case tarZstd
        /// tar, uncompressed only: the tar stream of an archive whose frames need its dictionary, decoded by the
        /// source (``DictionaryArchiveSource``).
        case tar
        /// xar, the container of macOS installer packages (`productbuild`, `pkgbuild`).
        case xar
        /// cpio (odc, newc and the other dialects libarchive reads), plain or gzip-compressed: an installer
        /// package's `Payload`.
        case cpioGzip
    }

    /// Opens the archive at `path` for reading.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened or is not tar (optionally zstd).
    /// The corresponding C functions are `archive_read_new` and `archive_read_open_filename`.
    public init(path: String, blockSize: Int = 1 << 16) throws(ArchiveError) {
        try self.init(path: path, format: .tarZstd, blockSize: blockSize)
    }

    /// Opens the archive at `path` for reading as `format`.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened or is not of that format.
    package init(path: String, format: Format, blockSize: Int = 1 << 16) throws(ArchiveError) {
        self.handle = try Self.open(path: path, format: format) { archive_read_open_filename($0, path, blockSize) }
        self.path = path
        self.source = nil
    }

    /// Opens an already-open file descriptor (read from its current offset; not closed by the reader).
    ///
    /// Verifying and extracting through the same descriptor closes the swap-after-check gap
    /// (Sparkle PR #2550). The corresponding C function is `archive_read_open_fd`.
    public init(fileDescriptor: Int32, displayPath: String, blockSize: Int = 1 << 16) throws(ArchiveError) {
        try self.init(fileDescriptor: fileDescriptor, displayPath: displayPath, format: .tarZstd, blockSize: blockSize)
    }

    /// Opens an already-open file descriptor as `format` (see ``init(fileDescriptor:displayPath:blockSize:)``).
    package init(fileDescriptor: Int32, displayPath: String, format: Format, blockSize: Int = 1 << 16) throws(ArchiveError) {
        self.handle = try Self.open(path: displayPath, format: format) { archive_read_open_fd($0, fileDescriptor, blockSize) }
        self.path = displayPath
        self.source = nil
    }

    /// Reads from `source` — bytes that are not (yet) a whole file, such as a download in progress.
    ///
    /// libarchive pulls blocks of up to `blockSize` bytes through a read callback; an error the
    /// source throws ends the archive and is what the reader's next call throws. The corresponding
    /// C function is `archive_read_open` with a read callback.
    public init(source: any ArchiveByteSource, displayPath: String, blockSize: Int = 1 << 18) throws(ArchiveError) {
        try self.init(source: source, displayPath: displayPath, format: .tarZstd, blockSize: blockSize)
    }

    /// Reads `format` from `source` (see ``init(source:displayPath:blockSize:)``).
    package init(
        source: any ArchiveByteSource, displayPath: String, format: Format, blockSize: Int = 1 << 18
    ) throws(ArchiveError) {
        let box = ArchiveSourceBox(source: source, blockSize: blockSize)
        let context = Unmanaged.passUnretained(box).toOpaque()
        self.handle = try Self.open(path: displayPath, format: format, sourceFailure: { box.failure }) {
            archive_read_open($0, context, nil, { _, context, block in ArchiveSourceBox.read(context: context, block: block) }, nil)
        }
        self.path = displayPath
        self.source = box
    }

    deinit {
        archive_read_free(handle)
    }

    /// A new reader with only `format` and its filters enabled, opened by `openCall`; freed again if that fails.
    private static func open(
        path: String, format: Format = .tarZstd, sourceFailure: () -> ArchiveError? = { nil },
        _ openCall: (OpaquePointer) -> Int32
    ) throws(ArchiveError) -> OpaquePointer {
        guard let handle = archive_read_new() else {
            throw ArchiveError(message: "libarchive could not allocate a reader", path: path)
        }
        switch format {
        case .tarZstd:
            archive_read_support_format_tar(handle)
            archive_read_support_filter_zstd(handle)
        case .tar:
            archive_read_support_format_tar(handle)
        case .xar:
            archive_read_support_format_xar(handle)
        case .cpioGzip:
            archive_read_support_format_cpio(handle)
            archive_read_support_filter_gzip(handle)
        }
        if openCall(handle) != ARCHIVE_OK {
            let error = sourceFailure() ?? ArchiveError(
                errno: archive_errno(handle), message: message(handle, fallback: "cannot open archive"), path: path)
            archive_read_free(handle)
            throw error
        }
        return handle
    }

    /// The error to throw: the source's own failure when it has one, else libarchive's message.
    private func failure(fallback: String) -> ArchiveError {
        if let failure = source?.failure { return failure }
        return ArchiveError(errno: archive_errno(handle), message: Self.message(handle, fallback: fallback), path: path)
    }

    /// The next entry's header, or `nil` at the end of the archive. Unread data of the previous entry is skipped.
    ///
    /// The corresponding C function is `archive_read_next_header`.
    public mutating func nextHeader() throws(ArchiveError) -> ArchiveEntryHeader? {
        entryOffset = 0
        var entry: OpaquePointer?
        let status = archive_read_next_header(handle, &entry)
        if status == ARCHIVE_EOF { return nil }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
            throw failure(fallback: "damaged or truncated archive")
        }
        let pathBytes: [UInt8]
        if let raw = archive_entry_pathname(entry) {
            pathBytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
        } else if let utf8 = archive_entry_pathname_utf8(entry) {
            pathBytes = Array(String(cString: utf8).utf8)
        } else {
            pathBytes = []
        }
        let mode = UInt32(archive_entry_mode(entry))
        var kind: ArchiveEntryHeader.Kind
        // POSIX file-type bits (libarchive's AE_IF* values; its macros carry casts Swift cannot import).
        switch mode & 0o170000 {
        case 0o100000: kind = .regular
        case 0o040000: kind = .directory
        case 0o120000: kind = .symlink
        case 0o010000: kind = .fifo
        case 0o020000: kind = .characterDevice
        case 0o060000: kind = .blockDevice
        case 0o140000: kind = .socket
        default: kind = .unknown(mode & 0o170000)
        }
        var linkTarget: String?
        if let hard = archive_entry_hardlink(entry) {
            kind = .hardlink
            linkTarget = String(cString: hard)
        } else if let soft = archive_entry_symlink(entry) {
            linkTarget = String(cString: soft)
        }
        return ArchiveEntryHeader(
            pathBytes: pathBytes, kind: kind, size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : 0,
            permissions: mode & 0o7777, linkTarget: linkTarget)
    }

    /// Reads up to `buffer.count` bytes of the current entry's data; returns 0 at the entry's end.
    ///
    /// The corresponding C function is `archive_read_data`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let count = archive_read_data(handle, buffer.baseAddress, buffer.count)
        if count < 0 { throw failure(fallback: "damaged or truncated entry data") }
        return count
    }

    /// The next block of the current entry's data as libarchive holds it (valid until the next call on the
    /// reader); an empty block at the entry's end.
    ///
    /// Unlike ``read(into:)`` this never invents bytes: `archive_read_data` fills the gap up to a block's
    /// offset with zeros, and libarchive 3.6.2's xar reader reports the end of every entry after the first at
    /// an offset counted across entries, so `archive_read_data` appends zeros to each of them (observed: a
    /// 1-byte entry read back as 4 bytes). A block that does not start where the previous one ended (a sparse
    /// entry) is an error here. The corresponding C function is `archive_read_data_block`.
    package mutating func readBlock() throws(ArchiveError) -> UnsafeRawBufferPointer {
        var pointer: UnsafeRawPointer?
        var size = 0
        var offset: Int64 = 0
        let status = archive_read_data_block(handle, &pointer, &size, &offset)
        if status == ARCHIVE_EOF { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw failure(fallback: "damaged or truncated entry data") }
        guard offset == entryOffset else {
            throw ArchiveError(message: "entry data has a gap at byte \(entryOffset) (a sparse entry)", path: path)
        }
        entryOffset += Int64(size)
        return UnsafeRawBufferPointer(start: pointer, count: size)
    }

    /// Skips the rest of the current entry's data. The corresponding C function is `archive_read_data_skip`.
    public mutating func skipData() throws(ArchiveError) {
        if archive_read_data_skip(handle) != ARCHIVE_OK { throw failure(fallback: "damaged or truncated archive") }
    }

    /// Names of the filters libarchive found, outermost first (e.g. `["zstd", "none"]`).
    public var filterNames: [String] {
        let count = archive_filter_count(handle)
        return (0..<count).compactMap { index in archive_filter_name(handle, index).map { String(cString: $0) } }
    }

    /// Bytes consumed from the compressed input so far (`archive_filter_bytes(a, -1)`).
    public var compressedBytesRead: Int64 { archive_filter_bytes(handle, -1) }

    private static func message(_ handle: OpaquePointer, fallback: String) -> String {
        if let cString = archive_error_string(handle) { return String(cString: cString) }
        return fallback
    }
}
