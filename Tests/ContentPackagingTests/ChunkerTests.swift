@testable import ContentPackaging
import Crypto
import PropertyBased
import Testing

/// Small sizes with the standard ratios (1 : 4 : 16), so property checks see many chunks quickly.
private let small = try! ChunkingParameters(minimum: 1 << 10, average: 4 << 10, maximum: 16 << 10)

/// The candidate parameter sets the benchmark compares, and the small set.
private let parameterSets: [ChunkingParameters] = [
    .standard,
    try! ChunkingParameters(minimum: 128 << 10, average: 512 << 10, maximum: 2 << 20),
    try! ChunkingParameters(minimum: 512 << 10, average: 2 << 20, maximum: 8 << 20),
    small,
]

/// 64 MiB of pseudo-random bytes, made once for the tests that need a big stream.
private let bigStream = ChunkerTestData.pseudoRandomBytes(count: 64 << 20, seed: 64)

/// The SHA-256 of each chunk of `bytes`.
private func chunkDigests(of bytes: [UInt8], parameters: ChunkingParameters) -> [SHA256Digest] {
    let lengths = ChunkerTestData.chunkLengths(of: bytes, parameters: parameters)
    return bytes.withUnsafeBytes { all in
        var start = 0
        return lengths.map { length in
            defer { start += length }
            return SHA256.hash(data: UnsafeRawBufferPointer(rebasing: all[start..<start + length]))
        }
    }
}

/// How many chunks of `after` are not chunks of `before`, and how many of `before` are gone.
private func changedChunks(before: [SHA256Digest], after: [SHA256Digest]) -> (new: Int, gone: Int) {
    let old = Set(before)
    let new = Set(after)
    return (after.filter { !old.contains($0) }.count, before.filter { !new.contains($0) }.count)
}

/// Checks the size rules: every chunk ≥ minimum but the last, every chunk ≤ maximum, sum = count.
private func expectSizeRules(_ lengths: [Int], total: Int, parameters: ChunkingParameters) {
    #expect(lengths.reduce(0, +) == total)
    for (index, length) in lengths.enumerated() {
        #expect(length <= parameters.maximum, "chunk \(index) has \(length) bytes")
        if index < lengths.count - 1 {
            #expect(length >= parameters.minimum, "chunk \(index) has \(length) bytes")
        } else {
            #expect(length > 0)
        }
    }
}

@Suite("Content-defined chunker")
struct ChunkerTests {
    // MARK: Streaming

    @Test("boundaries do not depend on how the stream is split into calls")
    func splitIndependence() async {
        let sizes = Gen.int(in: 1...40_000).array(of: 1...8)
        await propertyCheck(input: Gen.uint64(), sizes, Gen.int(in: 0...(512 << 10))) { seed, pieces, zerosAt in
            var bytes = ChunkerTestData.pseudoRandomBytes(count: 512 << 10, seed: seed)
            // A run of zeros somewhere makes hard cuts at the maximum too.
            let zerosEnd = min(zerosAt + 40_000, bytes.count)
            bytes.replaceSubrange(zerosAt..<zerosEnd, with: repeatElement(0, count: zerosEnd - zerosAt))
            let whole = ChunkerTestData.chunkLengths(of: bytes, parameters: small)
            let split = ChunkerTestData.chunkLengths(of: bytes, parameters: small, pieces: pieces)
            #expect(split == whole, "pieces \(pieces)")
        }
    }

    @Test("standard sizes: pieces of 10 KiB to 1 MiB, as libarchive writes, give the one-call boundaries")
    func splitIndependenceStandard() {
        var state: UInt64 = 7
        let pieces = (0..<200).map { _ in 10_240 + Int(ChunkerTestData.nextSplitMix64(&state) % ((1 << 20) - 10_240)) }
        let bytes = Array(bigStream[..<(24 << 20)]) + [UInt8](repeating: 0, count: 9 << 20)
        let whole = ChunkerTestData.chunkLengths(of: bytes, parameters: .standard)
        #expect(whole.count > 20)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: .standard, pieces: pieces) == whole)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: .standard, pieces: [1, 4095, 65_536]) == whole)
    }

    @Test("one byte per call (the byte loop alone) gives the boundaries of one call (the unrolled loop)")
    func byteByByte() {
        var bytes = ChunkerTestData.pseudoRandomBytes(count: 384 << 10, seed: 5)
        bytes.replaceSubrange(100_000..<150_000, with: repeatElement(0, count: 50_000))
        let whole = ChunkerTestData.chunkLengths(of: bytes, parameters: small)
        #expect(whole.count > 50)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: small, pieces: [1]) == whole)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: small, pieces: [3, 1, 2, 5, 7]) == whole)
    }

    @Test("an empty piece consumes nothing and finds nothing")
    func emptyPiece() {
        var chunker = ContentDefinedChunker(parameters: small)
        #expect(chunker.nextBoundary(in: UnsafeRawBufferPointer(start: nil, count: 0)) == nil)
        #expect(chunker.currentChunkLength == 0)
        let bytes = [UInt8](repeating: 0, count: 100)
        #expect(bytes.withUnsafeBytes { chunker.nextBoundary(in: $0) } == nil)
        #expect(chunker.currentChunkLength == 100)
        #expect([UInt8]().withUnsafeBytes { chunker.nextBoundary(in: $0) } == nil)
        #expect(chunker.currentChunkLength == 100)
    }

    @Test("reset starts a new chunk: the boundaries after it are those of a fresh chunker")
    func resetStartsOver() {
        let bytes = Array(bigStream[..<(256 << 10)])
        var chunker = ContentDefinedChunker(parameters: small)
        bytes.withUnsafeBytes { all in
            _ = chunker.nextBoundary(in: UnsafeRawBufferPointer(rebasing: all[..<3000]))
            chunker.reset()
            #expect(chunker.currentChunkLength == 0)
            var fresh = ContentDefinedChunker(parameters: small)
            #expect(chunker.nextBoundary(in: all) == fresh.nextBoundary(in: all))
        }
    }

    // MARK: Sizes

    @Test("every chunk is at least the minimum (but the last) and at most the maximum")
    func sizeRules() async {
        await propertyCheck(input: Gen.uint64(), Gen.int(in: 1...(400 << 10))) { seed, count in
            let bytes = ChunkerTestData.pseudoRandomBytes(count: count, seed: seed)
            expectSizeRules(ChunkerTestData.chunkLengths(of: bytes, parameters: small), total: count, parameters: small)
        }
        expectSizeRules(
            ChunkerTestData.chunkLengths(of: bigStream, parameters: .standard), total: bigStream.count,
            parameters: .standard)
    }

    @Test("a run of zeros is cut at the maximum", arguments: parameterSets)
    func zerosCutAtMaximum(parameters: ChunkingParameters) {
        let bytes = [UInt8](repeating: 0, count: 3 * parameters.maximum + 100)
        let lengths = ChunkerTestData.chunkLengths(of: bytes, parameters: parameters)
        #expect(lengths == [parameters.maximum, parameters.maximum, parameters.maximum, 100])
    }

    @Test("a stream shorter than the minimum is one chunk")
    func shortStream() {
        let bytes = ChunkerTestData.pseudoRandomBytes(count: small.minimum - 1, seed: 3)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: small) == [small.minimum - 1])
    }

    @Test(
        "mean chunk size on random data is within ±25 % of the average",
        arguments: [ChunkingParameters.standard, small])
    func meanSize(parameters: ChunkingParameters) {
        var lengths = ChunkerTestData.chunkLengths(of: bigStream, parameters: parameters)
        lengths.removeLast()  // the remainder is no sample
        let mean = Double(lengths.reduce(0, +)) / Double(lengths.count)
        let average = Double(parameters.average)
        #expect((0.75 * average...1.25 * average).contains(mean), "mean \(mean) of \(lengths.count) chunks")
    }

    // MARK: Locality

    @Test("inserting 10 KB in the middle of 64 MiB changes at most 3 chunks")
    func insertionIsLocal() {
        var edited = bigStream
        edited.insert(contentsOf: ChunkerTestData.pseudoRandomBytes(count: 10_000, seed: 99), at: bigStream.count / 2)
        let change = changedChunks(
            before: chunkDigests(of: bigStream, parameters: .standard),
            after: chunkDigests(of: edited, parameters: .standard))
        #expect(change.new <= 3 && change.gone <= 3, "\(change)")
    }

    @Test("deleting 10 KB from the middle of 64 MiB changes at most 3 chunks")
    func deletionIsLocal() {
        var edited = bigStream
        edited.removeSubrange(bigStream.count / 2..<bigStream.count / 2 + 10_000)
        let change = changedChunks(
            before: chunkDigests(of: bigStream, parameters: .standard),
            after: chunkDigests(of: edited, parameters: .standard))
        #expect(change.new <= 3 && change.gone <= 3, "\(change)")
    }

    // MARK: The format

    @Test("golden: the boundaries of a fixed input never change (they are part of the archive format)")
    func goldenBoundaries() {
        let bytes = ChunkerTestData.pseudoRandomBytes(count: 8 << 20, seed: 2024)
        #expect(ChunkerTestData.chunkLengths(of: bytes, parameters: .standard) == [
            1_281_621, 1_060_037, 1_117_156, 1_090_956, 561_199, 1_246_554, 1_156_344, 874_741,
        ])
        #expect(Array(ChunkerTestData.chunkLengths(of: bytes, parameters: small).prefix(12)) == [
            4346, 1682, 4765, 2545, 4994, 5092, 4398, 6021, 4381, 4941, 5180, 4833,
        ])
    }

    @Test("golden: the gear table is splitmix64 from the fixed seed")
    func goldenGearTable() {
        #expect(GearTable.seed == 0x6961_7063_6F6E_7465)
        #expect(GearTable.values.count == 256)
        #expect(GearTable.values[0] == 0x65D7_DDDB_2446_60AB)
        #expect(GearTable.values[1] == 0xA367_ACDE_EF47_197A)
        #expect(GearTable.values[255] == 0xBE3E_DE97_A7D3_C298)
        #expect(GearTable.values.reduce(0, ^) == 0xC0F7_173E_85F1_297D)
    }

    // MARK: Parameters

    @Test("the standard parameters are 256 KiB / 1 MiB / 4 MiB and pass validation")
    func standardParameters() throws {
        let validated = try ChunkingParameters(minimum: 262_144, average: 1_048_576, maximum: 4_194_304)
        #expect(ChunkingParameters.standard == validated)
    }

    @Test(
        "invalid parameters are refused",
        arguments: [(0, 1024, 4096), (1024, 1024, 4096), (2048, 1024, 4096), (256, 1024, 1024), (256, 1000, 4096),
                    (8, 32, 128), (1, 1 << 31, 1 << 33), (-1, 1024, 4096)])
    func invalidParameters(minimum: Int, average: Int, maximum: Int) {
        #expect(throws: ChunkingParametersError.self) {
            try ChunkingParameters(minimum: minimum, average: average, maximum: maximum)
        }
    }
}
