/// One chunk's frame in ``FrameMemory`` segments: filled in order by a connection as its bytes arrive, then read
/// in order by a verifier. A segment holds bytes of one frame only.
struct SegmentedFrame: Sendable {
    /// The segments, in order; the last one may be partly filled.
    private(set) var segments: [FrameSegment] = []
    /// Bytes filled.
    private(set) var length = 0
    /// The segments ``FrameMemory`` admitted it for (0: not yet).
    var admitted = 0

    /// Room left in the last segment.
    var room: Int { segments.count * FrameMemory.segmentBytes - length }

    /// Appends a segment to fill.
    mutating func append(_ segment: FrameSegment) { segments.append(segment) }

    /// Copies as many of `bytes` as the segments hold; the number copied.
    mutating func fill(from bytes: UnsafeRawBufferPointer) -> Int {
        var copied = 0
        while copied < bytes.count, room > 0, let source = bytes.baseAddress {
            let offset = length % FrameMemory.segmentBytes
            let count = min(FrameMemory.segmentBytes - offset, bytes.count - copied)
            (segments[length / FrameMemory.segmentBytes].base + offset).copyMemory(from: source + copied, byteCount: count)
            length += count
            copied += count
        }
        return copied
    }

    /// The filled bytes, segment by segment.
    var pieces: [UnsafeRawBufferPointer] {
        segments.indices.map { index in
            let start = index * FrameMemory.segmentBytes
            return UnsafeRawBufferPointer(start: segments[index].base, count: min(FrameMemory.segmentBytes, length - start))
        }
    }
}
