import ContentPackaging
import Crypto
import Foundation
import Glibc
import Testing

/// Throughput and chunk-size distribution of ``ContentDefinedChunker`` for the candidate
/// parameter sets, on one file held in memory. Skipped unless `IAPCONTENT_CHUNK_BENCH=1`;
/// `tools/chunk-bench` builds the tests in release mode and runs it.
///
/// `IAPCONTENT_CHUNK_BENCH_FILE` names the input (default: 1 GiB of pseudo-random bytes);
/// `IAPCONTENT_CHUNK_BENCH_PIECE` the size of each call's piece (default 1 MiB, libarchive writes
/// 10 KiB to 1 MiB). Each set is timed over the whole input `rounds` times on one thread; the best
/// round counts (the least disturbed by the other work of a shared machine), the median is shown.
@Suite("Chunker benchmark")
struct ChunkerBenchmarkTests {
    /// The environment of the test process.
    private static let environment = ProcessInfo.processInfo.environment
    /// Timed passes per parameter set.
    private static let rounds = 5

    /// The candidate parameter sets: minimum / average / maximum with the ratios 1 : 4 : 16.
    private static let candidates: [ChunkingParameters] = [
        try! ChunkingParameters(minimum: 128 << 10, average: 512 << 10, maximum: 2 << 20),
        .standard,
        try! ChunkingParameters(minimum: 512 << 10, average: 2 << 20, maximum: 8 << 20),
    ]

    @Test("chunker throughput and chunk sizes", .enabled(if: environment["IAPCONTENT_CHUNK_BENCH"] == "1"))
    func benchmark() throws {
        let input = try Self.loadInput()
        defer { input.bytes.deallocate() }
        let bytes = UnsafeRawBufferPointer(input.bytes)
        let piece = Int(Self.environment["IAPCONTENT_CHUNK_BENCH_PIECE"] ?? "") ?? 1 << 20
        print("input: \(input.name), \(bytes.count) bytes; pieces of \(piece) bytes")
        print("best (median) of \(Self.rounds) rounds, one thread, MB = 10^6 bytes")

        // References on the same bytes: a plain read of every byte, and SHA-256 (which the chunk index needs anyway).
        let read = Self.time { () -> Int in
            var sum: UInt64 = 0
            var offset = 0
            while offset + 8 <= bytes.count {
                sum &+= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            return Int(truncatingIfNeeded: sum & 1)
        }
        print(Self.rate("read (8-byte loads)", bytes: bytes.count, seconds: read))
        let sha = Self.time { () -> Int in Int(SHA256.hash(data: bytes).withUnsafeBytes { $0[0] }) }
        print(Self.rate("SHA-256 (swift-crypto)", bytes: bytes.count, seconds: sha))

        for parameters in Self.candidates {
            var lengths: [Int] = []
            let seconds = Self.time { () -> Int in
                lengths = ChunkerTestData.chunkLengths(of: bytes, parameters: parameters, pieces: [piece])
                return lengths.count
            }
            print(Self.rate("chunker \(Self.sizes(parameters))", bytes: bytes.count, seconds: seconds))
            print("  " + Self.statistics(lengths, parameters: parameters))
            #expect(lengths.reduce(0, +) == bytes.count)
        }
    }

    // MARK: Input

    /// The input bytes (owned by the caller) and a name for them.
    private static func loadInput() throws -> (bytes: UnsafeMutableRawBufferPointer, name: String) {
        guard let path = environment["IAPCONTENT_CHUNK_BENCH_FILE"], !path.isEmpty else {
            let random = ChunkerTestData.pseudoRandomBytes(count: 1 << 30, seed: 1)
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: random.count, alignment: 64)
            random.withUnsafeBytes { bytes.copyMemory(from: $0) }
            return (bytes, "1 GiB of pseudo-random bytes")
        }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0, "cannot open \(path)")
        defer { close(fd) }
        var status = stat()
        try #require(fstat(fd, &status) == 0)
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(status.st_size), alignment: 64)
        var filled = 0
        while filled < bytes.count {
            let got = read(fd, bytes.baseAddress! + filled, min(bytes.count - filled, 64 << 20))
            try #require(got > 0, "reading \(path) failed at byte \(filled)")
            filled += got
        }
        return (bytes, path)
    }

    // MARK: Measuring

    /// Seconds of the fastest and of the median of ``rounds`` runs of `body`.
    private static func time(_ body: () -> Int) -> (best: Double, median: Double) {
        var samples: [Double] = []
        var sink = 0
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            sink &+= body()
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        precondition(sink != .min)  // keeps the work observable
        samples.sort()
        return (samples[0], samples[samples.count / 2])
    }

    /// "label: N MB/s (median M MB/s)", MB = 10⁶ bytes.
    private static func rate(_ label: String, bytes: Int, seconds: (best: Double, median: Double)) -> String {
        let best = Double(bytes) / seconds.best / 1e6
        let median = Double(bytes) / seconds.median / 1e6
        return "\(label): \(String(format: "%.0f", best)) MB/s (median \(String(format: "%.0f", median)) MB/s)"
    }

    /// "128K / 512K / 2M" style sizes.
    private static func sizes(_ parameters: ChunkingParameters) -> String {
        [parameters.minimum, parameters.average, parameters.maximum].map(kibibytes).joined(separator: " / ")
    }

    /// `bytes` in KiB or MiB, whichever reads shorter.
    private static func kibibytes(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return String(format: "%.0f KiB", Double(bytes) / 1024)
    }

    /// Count, mean, standard deviation, percentiles and extremes of the chunk lengths (the final
    /// partial chunk left out), and the share of chunks cut at the maximum.
    private static func statistics(_ all: [Int], parameters: ChunkingParameters) -> String {
        let lengths = all.count > 1 ? Array(all.dropLast()).sorted() : all
        guard !lengths.isEmpty else { return "no chunks" }
        let count = Double(lengths.count)
        let mean = Double(lengths.reduce(0, +)) / count
        let variance = lengths.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / count
        func percentile(_ p: Double) -> String { kibibytes(lengths[min(lengths.count - 1, Int(p * count))]) }
        let atMaximum = lengths.filter { $0 == parameters.maximum }.count
        let ratio = String(format: "%.2f", mean / Double(parameters.average))
        return "chunks \(all.count), mean \(kibibytes(Int(mean))) (\(ratio)× average), "
            + "sd \(kibibytes(Int(variance.squareRoot()))), min \(kibibytes(lengths[0])), "
            + "p5 \(percentile(0.05)), p25 \(percentile(0.25)), p50 \(percentile(0.5)), p75 \(percentile(0.75)), "
            + "p95 \(percentile(0.95)), max \(kibibytes(lengths[lengths.count - 1])), "
            + "cut at maximum \(atMaximum) (\(String(format: "%.1f", 100 * Double(atMaximum) / count)) %)"
    }
}
