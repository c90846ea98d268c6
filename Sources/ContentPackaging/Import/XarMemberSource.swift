/// The bytes of the current member of a xar archive, as an ``ArchiveByteSource`` for a second reader: the
/// component's `Payload` is read as a cpio archive straight out of the package, never copied to disk.
///
/// Refuses a pbzx stream (the `pbzx` magic at the start; the chunked xz framing newer pkgbuild versions
/// write), which libarchive does not read.
final class XarMemberSource: ArchiveByteSource {
    private var reader: ArchiveReader
    private let display: String
    /// Bytes of the last block not yet handed on (valid until the reader is called again).
    private var pending = UnsafeRawBufferPointer(start: nil, count: 0)
    private var started = false

    /// Reads the member `reader` is positioned at.
    init(_ reader: consuming ArchiveReader, display: String) {
        self.reader = reader
        self.display = display
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        if pending.isEmpty {
            pending = try reader.readBlock()
            if !started, !pending.isEmpty {
                started = true
                if pending.starts(with: Array("pbzx".utf8)) {
                    throw ArchiveError(
                        message: "is a pbzx-compressed payload, which this version does not read; expand the package on a Mac (pkgutil --expand-full) and import the expanded content folder",
                        path: display)
                }
            }
        }
        let count = min(buffer.count, pending.count)
        guard count > 0 else { return 0 }
        buffer.baseAddress!.copyMemory(from: pending.baseAddress!, byteCount: count)
        pending = UnsafeRawBufferPointer(rebasing: pending[count...])
        return count
    }
}
