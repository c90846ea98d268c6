import CPairedSHA256
import Crypto
import SystemSupport

/// Two SHA-256 digests over one byte stream in one pass: the first over every byte, the second over the
/// parts marked for it (a chunk-indexed pack: the chunk's digest over all tar bytes, the file's over its data).
///
/// Where both take the same bytes, their blocks go through `CPairedSHA256_blocks2`, which interleaves the
/// two streams' rounds on the CPU's SHA extensions: about 1.5 times the speed of hashing the bytes twice.
/// Each stream keeps its own partial block, so the two may start and end anywhere in the bytes. Without SHA
/// extensions each stream is swift-crypto's `SHA256`. Digests are lowercase hex; finishing one stream starts
/// it again from empty. Used by one thread at a time (the pack's `iap-pack-hash`).
struct PairedSHA256: ~Copyable {
    /// Whether this CPU runs the interleaved code (else swift-crypto hashes each stream).
    static let isAccelerated = CPairedSHA256_available() != 0

    private var first: Stream
    private var second: Stream

    /// Two empty streams; `accelerated` false forces swift-crypto (tests check both paths).
    init(accelerated: Bool = PairedSHA256.isAccelerated) {
        precondition(!accelerated || Self.isAccelerated, "this CPU has no SHA extensions")
        first = Stream(accelerated: accelerated)
        second = Stream(accelerated: accelerated)
    }

    deinit {
        first.deallocate()
        second.deallocate()
    }

    /// Adds `bytes` to the first stream and, with `second`, to the second too.
    mutating func update(_ bytes: UnsafeRawBufferPointer, second alsoSecond: Bool) {
        guard !bytes.isEmpty else { return }
        guard alsoSecond else { return first.update(bytes) }
        guard first.isAccelerated else {
            first.update(bytes)
            return second.update(bytes)
        }
        first.length += UInt64(bytes.count)
        second.length += UInt64(bytes.count)
        var firstStart = first.fill(from: bytes)
        var secondStart = second.fill(from: bytes)
        // Each stream now either still holds a partial block (its start is the end) or starts a block.
        let blocks = min(bytes.count - firstStart, bytes.count - secondStart) / Stream.blockSize
        if blocks > 0 {
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            CPairedSHA256_blocks2(first.state, base + firstStart, second.state, base + secondStart, blocks)
            firstStart += blocks * Stream.blockSize
            secondStart += blocks * Stream.blockSize
        }
        first.absorb(UnsafeRawBufferPointer(rebasing: bytes[firstStart...]))
        second.absorb(UnsafeRawBufferPointer(rebasing: bytes[secondStart...]))
    }

    /// The first stream's digest; the stream starts again from empty.
    mutating func finishFirst() -> String { first.finish() }

    /// The second stream's digest; the stream starts again from empty.
    mutating func finishSecond() -> String { second.finish() }
}

/// One SHA-256 stream: the state, the partial block and the length, or swift-crypto's hasher.
private struct Stream {
    static let blockSize = 64
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// Eight words a…h (accelerated only).
    let state: UnsafeMutablePointer<UInt32>
    /// The partial block (accelerated only).
    private let block: UnsafeMutablePointer<UInt8>
    /// Bytes in ``block``.
    private var pending = 0
    /// Bytes hashed so far.
    var length: UInt64 = 0
    /// swift-crypto's hasher when not accelerated.
    private var portable: SHA256?

    var isAccelerated: Bool { portable == nil }

    init(accelerated: Bool) {
        state = .allocate(capacity: 8)
        state.initialize(from: Self.initialState, count: 8)
        block = .allocate(capacity: Self.blockSize)
        if !accelerated { portable = SHA256() }
    }

    func deallocate() {
        state.deallocate()
        block.deallocate()
    }

    /// Adds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if portable != nil { return portable!.update(bufferPointer: bytes) }
        length += UInt64(bytes.count)
        let used = fill(from: bytes)
        absorb(UnsafeRawBufferPointer(rebasing: bytes[used...]))
    }

    /// Completes a started block from the front of `bytes` (hashing it when full); how many bytes it took.
    /// The caller counts them in ``length``.
    mutating func fill(from bytes: UnsafeRawBufferPointer) -> Int {
        guard pending > 0 else { return 0 }
        let count = min(Self.blockSize - pending, bytes.count)
        UnsafeMutableRawPointer(block + pending).copyMemory(from: bytes.baseAddress!, byteCount: count)
        pending += count
        if pending == Self.blockSize {
            CPairedSHA256_blocks(state, block, 1)
            pending = 0
        }
        return count
    }

    /// Hashes the whole blocks of `bytes` and keeps the rest as the partial block; with a partial block
    /// pending, `bytes` must be empty. The caller counts them in ``length``.
    mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        precondition(pending == 0, "a partial block must be completed first")
        let blocks = bytes.count / Self.blockSize
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if blocks > 0 { CPairedSHA256_blocks(state, base, blocks) }
        pending = bytes.count - blocks * Self.blockSize
        block.update(from: base + blocks * Self.blockSize, count: pending)
    }

    /// Pads, returns the digest as lowercase hex, and starts again from empty.
    mutating func finish() -> String {
        if let hasher = portable {
            portable = SHA256()
            return hasher.finalizeHex()
        }
        let bits = length &* 8
        block[pending] = 0x80
        (block + pending + 1).update(repeating: 0, count: Self.blockSize - pending - 1)
        if pending + 1 > Self.blockSize - 8 {
            CPairedSHA256_blocks(state, block, 1)
            block.update(repeating: 0, count: Self.blockSize)
        }
        for index in 0..<8 { block[Self.blockSize - 1 - index] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index))) }
        CPairedSHA256_blocks(state, block, 1)
        let digest = (0..<32).map { UInt8(truncatingIfNeeded: state[$0 / 4] >> (24 - 8 * UInt32($0 % 4))) }
        state.update(from: Self.initialState, count: 8)
        pending = 0
        length = 0
        return digest.lowercaseHex
    }
}
