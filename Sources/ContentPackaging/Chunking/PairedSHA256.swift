import SystemSupport

/// Two SHA-256 digests over one byte stream in one pass: the first over every byte, the second over the
/// parts marked for it (a chunk-indexed pack: the chunk's digest over all tar bytes, the file's over its data).
///
/// Where both take the same bytes, their blocks go through ``SHA256Stream/update(_:first:second:)``, which
/// interleaves the two streams' rounds on the CPU's SHA extensions: about 1.5 times the speed of hashing the bytes
/// twice. Each stream keeps its own partial block, so the two may start and end anywhere in the bytes. Without SHA
/// extensions each stream is swift-crypto's `SHA256`. Digests are lowercase hex; finishing one stream starts it
/// again from empty. Used by one thread at a time (the pack's `iap-pack-hash`).
struct PairedSHA256 {
    /// Whether this CPU runs the interleaved code (else swift-crypto hashes each stream).
    static var isAccelerated: Bool { SHA256Stream.isAccelerated }

    private var first: SHA256Stream
    private var second: SHA256Stream

    /// Two empty streams; `accelerated` false forces swift-crypto (tests check both paths).
    init(accelerated: Bool = PairedSHA256.isAccelerated) {
        first = SHA256Stream(accelerated: accelerated)
        second = SHA256Stream(accelerated: accelerated)
    }

    /// Adds `bytes` to the first stream and, with `second`, to the second too.
    mutating func update(_ bytes: UnsafeRawBufferPointer, second alsoSecond: Bool) {
        if alsoSecond { SHA256Stream.update(bytes, first: &first, second: &second) } else { first.update(bytes) }
    }

    /// The first stream's digest; the stream starts again from empty.
    mutating func finishFirst() -> String { first.finish() }

    /// The second stream's digest; the stream starts again from empty.
    mutating func finishSecond() -> String { second.finish() }
}
