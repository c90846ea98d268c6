import SystemSupport
/// The archive writer's side of a ``FileReadAheadThread``: file data slice by slice, in entry order.
///
/// ```swift
/// let files = FileReadAhead(entries: entries, root: root)
/// defer { files.close() }
/// while let (slice, bytes) = try files.next() { … }
/// ```
/// Used on one thread only. ``close()`` (also run on deinit) stops the reader early if needed,
/// takes every buffer back and frees it.
final class FileReadAhead {
    private let reader: FileReadAheadThread
    /// The batch being consumed and the index of its next slice.
    private var batch: (buffer: PageAlignedBuffer, slices: [FileReadAheadThread.FileSlice], next: Int)?
    /// True once ``FileReadAheadThread/Message/end`` or `failed` arrived.
    private var ended = false
    private var closed = false

    /// Starts reading the regular files among `entries` (sorted) below `root` but those at `skipping` (stored as
    /// links, their data never read), hashing each unless `hashing` is false.
    init(entries: [PackEntry], root: String, hashing: Bool = true, skipping: Set<Int> = []) {
        reader = FileReadAheadThread(entries: entries, root: root, hashing: hashing, skipping: skipping)
    }

    deinit {
        close()
    }

    /// The next slice and its bytes (valid until the next call), or `nil` after the last file.
    ///
    /// - Throws: the reader's ``PackError`` (a file vanished, changed size or could not be read).
    func next() throws(PackError) -> (FileReadAheadThread.FileSlice, UnsafeRawBufferPointer)? {
        while true {
            if let current = batch {
                if current.next < current.slices.count {
                    let slice = current.slices[current.next]
                    batch!.next += 1
                    return (slice, UnsafeRawBufferPointer(rebasing: current.buffer.bytes[slice.range]))
                }
                reader.spare.send(current.buffer)
                batch = nil
            }
            if ended { return nil }
            switch reader.filled.receive() {
            case .batch(let buffer, let slices):
                batch = (buffer, slices, 0)
            case .failed(let error):
                ended = true
                throw error
            case .end:
                ended = true
                return nil
            }
        }
    }

    /// Stops the reader (if still reading), waits for it, and frees the buffers. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        reader.cancel()
        if let current = batch {
            reader.spare.send(current.buffer)
            batch = nil
        }
        while !ended {
            switch reader.filled.receive() {
            case .batch(let buffer, _): reader.spare.send(buffer)
            case .failed, .end: ended = true
            }
        }
        for _ in 0..<FileReadAheadThread.bufferCount { reader.spare.receive().deallocate() }
    }
}
