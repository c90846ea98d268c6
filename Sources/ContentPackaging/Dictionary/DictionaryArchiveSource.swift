import CZstd
import Glibc

/// The tar stream of an archive that stores a dictionary at its start (`pack --dictionary`), decoded with that
/// dictionary, for an ``ArchiveReader`` opened with the `.tar` format: libarchive's zstd filter has no way to be
/// given a dictionary, so the frames are decoded here and libarchive reads the plain tar stream.
///
/// The dictionary is the archive's own (``FrameDictionary/stored(atStartOf:readMore:)``): `inspect` checks the
/// archive alone first and then against its manifest, whose record of the dictionary it compares. Owned by the
/// reader that reads from it, on that reader's thread.
final class DictionaryArchiveSource: ArchiveByteSource {
    /// The archive's dictionary, read from its first frame.
    let dictionary: FrameDictionary
    private let fd: Int32
    private let path: String
    private let context: OpaquePointer
    private let input: UnsafeMutableRawBufferPointer
    private var inputBuffer: ZSTD_inBuffer
    private var ended = false

    /// The source for the archive at `path` when it starts with a stored dictionary; `nil` when it does not (a
    /// standard zstd reader decodes it alone).
    /// - Throws: ``ArchiveError`` when the file cannot be read or its dictionary frame is damaged.
    static func open(path: String) throws(ArchiveError) -> DictionaryArchiveSource? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError(errno: errno, message: "cannot open: \(String(cString: strerror(errno)))", path: path) }
        func readStart(_ length: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: length)
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            return Array(bytes[0..<max(0, count)])
        }
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
        lseek(fd, off_t(dictionary.record.length), SEEK_SET)  // the frames after the dictionary's
    }

    deinit {
        ZSTD_freeDCtx(context)
        input.deallocate()
        close(fd)
    }

    /// The next decoded tar bytes; 0 at the end of the archive's last frame.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
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
            let count = Glibc.read(fd, input.baseAddress, input.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw ArchiveError(errno: errno, message: "read failed: \(String(cString: strerror(errno)))", path: path) }
            if count == 0 { ended = true }
            inputBuffer = ZSTD_inBuffer(src: input.baseAddress, size: count, pos: 0)
        }
    }
}
