import CArchive

/// Bytes for an ``ArchiveReader`` that do not come from a whole file: a download still arriving.
///
/// The reader calls ``read(into:)`` on the thread that drives it; the source may block until
/// bytes are there. Return 0 only at the real end of the archive; throw to abandon it (the
/// reader's next call throws that error).
public protocol ArchiveByteSource: AnyObject {
    /// Fills the start of `buffer` with the next bytes; returns how many (0 = end of archive).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int
}

/// Keeps a source, its block buffer and its first failure alive for libarchive's read callback.
final class ArchiveSourceBox {
    let source: any ArchiveByteSource
    let buffer: UnsafeMutableRawBufferPointer
    /// The error the source threw; the reader reports it instead of libarchive's generic one.
    var failure: ArchiveError?

    init(source: any ArchiveByteSource, blockSize: Int) {
        self.source = source
        buffer = .allocate(byteCount: max(blockSize, 4096), alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The body of libarchive's read callback: hands it the next block (valid until the next call).
    static func read(context: UnsafeMutableRawPointer?, block: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
        guard let context, let block else { return -1 }
        let box = Unmanaged<ArchiveSourceBox>.fromOpaque(context).takeUnretainedValue()
        if box.failure != nil { return -1 }
        do throws(ArchiveError) {
            let count = try box.source.read(into: box.buffer)
            block.pointee = UnsafeRawPointer(box.buffer.baseAddress)
            return count
        } catch {
            box.failure = error
            return -1
        }
    }
}
