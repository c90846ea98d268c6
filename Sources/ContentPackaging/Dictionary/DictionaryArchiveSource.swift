import CZstd
import SystemSupport
import Glibc

/// The tar stream of an archive that stores a dictionary at its start (`pack --dictionary`), decoded with that
/// dictionary, for an ``ArchiveReader`` opened with the `.tar` format: libarchive's zstd filter has no way to be
/// given a dictionary, so the frames are decoded here and libarchive reads the plain tar stream.
///
/// The dictionary is the archive's own (``FrameDictionary/stored(atStartOf:readMore:)``): `inspect` checks the
/// archive alone first and then against its manifest, whose record of the dictionary it compares; a client installing
/// a whole archive uses it only once the archive matched the signed catalog's SHA-256. Owned by the reader that reads
/// from it, on that reader's thread; it reads with `pread`, so a descriptor it borrows keeps its own offset.
package final class DictionaryArchiveSource: ArchiveByteSource {
    /// The archive's dictionary, read from its first frame.
    package let dictionary: FrameDictionary
    private let fd: Int32
    private let path: String
    private let context: OpaquePointer
    private let input: UnsafeMutableRawBufferPointer
    private var inputBuffer: ZSTD_inBuffer
    private var ended = false
    /// Where the next read starts in the archive.
    private var position: Int64

    /// The source for the archive at `path` when it starts with a stored dictionary; `nil` when it does not (a
    /// standard zstd reader decodes it alone).
    /// - Throws: ``ArchiveError`` when the file cannot be read or its dictionary frame is damaged.
    package static func open(path: String) throws(ArchiveError) -> DictionaryArchiveSource? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError(errno: errno, message: "cannot open: \(String(cString: strerror(errno)))", path: path) }
        return try source(owning: fd, path: path)
    }

    /// ``open(path:)`` for an archive already open as `descriptor` (which stays open and unmoved: the source reads
    /// through a duplicate of it, by offset).
    package static func open(descriptor: Int32, path: String) throws(ArchiveError) -> DictionaryArchiveSource? {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw ArchiveError(errno: errno, message: "cannot duplicate its descriptor: \(String(cString: strerror(errno)))", path: path) }
        return try source(owning: fd, path: path)
    }

    /// The source reading `fd`, which it closes, or `nil` (and `fd` closed) when the archive stores no dictionary.
    private static func source(owning fd: Int32, path: String) throws(ArchiveError) -> DictionaryArchiveSource? {
        func readStart(_ length: Int) -> [UInt8] { PositionalRead.bytes(fd, count: length, at: 0) ?? [] }
        do throws(DictionaryError) {
            guard let found = try FrameDictionary.stored(atStartOf: readStart(FrameDictionary.headerLength), readFrame: readStart) else {
                close(fd)
                return nil
            }
            return DictionaryArchiveSource(fd: fd, path: path, dictionary: found)
        } catch {
            close(fd)
            throw ArchiveError(message: "\(error.message); pack it again", path: path)
        }
    }

    private init(fd: Int32, path: String, dictionary: FrameDictionary) {
        self.fd = fd
        self.path = path
        self.dictionary = dictionary
        guard let context = ZSTD_createDCtx() else { fatalError("libzstd could not allocate a decompression context (out of memory)") }
        dictionary.attach(to: context)
        self.context = context
        input = .allocate(byteCount: Int(ZSTD_DStreamInSize()), alignment: 16)
        inputBuffer = ZSTD_inBuffer(src: input.baseAddress, size: 0, pos: 0)
        position = dictionary.record.length  // the frames after the dictionary's
    }

    deinit {
        ZSTD_freeDCtx(context)
        input.deallocate()
        close(fd)
    }

    /// The next decoded tar bytes; 0 at the end of the archive's last frame.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        while true {
            // Called with no input too: what libzstd holds back from a full output comes out first.
            let result = ZSTD_decompressStream(context, &output, &inputBuffer)
            if ZSTD_isError(result) != 0 {
                throw ArchiveError(message: "a frame does not decode with the archive's dictionary (\(String(cString: ZSTD_getErrorName(result)))); pack it again", path: path)
            }
            if output.pos > 0 { return output.pos }
            guard inputBuffer.pos == inputBuffer.size else { continue }
            guard !ended else { return 0 }
            let count = pread(fd, input.baseAddress, input.count, off_t(position))
            if count < 0, errno == EINTR { continue }
            if count > 0 { position += Int64(count) }
            guard count >= 0 else { throw ArchiveError(errno: errno, message: "read failed: \(String(cString: strerror(errno)))", path: path) }
            if count == 0 { ended = true }
            inputBuffer = ZSTD_inBuffer(src: input.baseAddress, size: count, pos: 0)
        }
    }
}
