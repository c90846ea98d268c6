import CZstd
import SystemSupport

/// Trains the zstd dictionary of one archive (`pack --dictionary`) on the data of its small files, the files that go
/// in frames of a bounded size (``FileGroupBudget``) and so start without history.
///
/// **Samples.** At most ``sampleBudget(capacity:)`` bytes (about 100 times the dictionary, what zstd's own trainer
/// asks for), from files spread evenly over the small files in path order, at most ``largestSample`` bytes of each:
/// a tree of 300 000 small files reads a few thousand of them once more, not all. The choice depends only on the
/// paths and sizes, and libzstd's trainer (`ZDICT_trainFromBuffer`, single-threaded) only on the samples, so the same
/// folder always gives the same dictionary and the archive stays reproducible.
///
/// **When none.** With fewer sample bytes than ``smallestTrainingSet(capacity:)`` a dictionary would cost about what
/// it saves; ``train(samplesOf:capacity:)`` then returns `nil` and the archive is packed without one.
enum DictionaryTrainer {
    /// The most bytes taken from one file.
    static let largestSample = 32 << 10

    /// About a hundred times the dictionary's capacity.
    static func sampleBudget(capacity: Int) -> Int { capacity * 100 }

    /// Below this many sample bytes no dictionary is trained: eight times its capacity.
    static func smallestTrainingSet(capacity: Int) -> Int { capacity * 8 }

    /// The files to sample among `sizes` (each small file's size, in path order): their indices into `sizes`.
    static func chosen(sizes: [Int64], capacity: Int) -> [Int] {
        let total = sizes.reduce(Int64(0)) { $0 + min($1, Int64(largestSample)) }
        let budget = Int64(sampleBudget(capacity: capacity))
        guard total > budget else { return Array(sizes.indices) }
        // Take a file each time the share of the bytes seen passes the next share of the budget: spread evenly.
        var picked: [Int] = []
        var seen: Int64 = 0, taken: Int64 = 0
        for (index, size) in sizes.enumerated() {
            let sample = min(size, Int64(largestSample))
            // The budget's share of the bytes before this file: taken while the samples are not past it.
            if Double(taken) <= Double(seen) * Double(budget) / Double(total), taken + sample <= budget {
                picked.append(index)
                taken += sample
            }
            seen += sample
        }
        return picked
    }

    /// A dictionary of at most `capacity` bytes trained on `samples` (each one file's first bytes), or `nil` when
    /// there are too few of them or libzstd finds nothing worth keeping.
    static func train(samplesOf samples: [[UInt8]], capacity: Int) -> [UInt8]? {
        let total = samples.reduce(0) { $0 + $1.count }
        guard samples.count >= 8, total >= smallestTrainingSet(capacity: capacity) else { return nil }
        var joined: [UInt8] = []
        joined.reserveCapacity(total)
        for sample in samples { joined.append(contentsOf: sample) }
        let sizes = samples.map(\.count)
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let length = dictionary.withUnsafeMutableBytes { out in
            joined.withUnsafeBytes { input in
                sizes.withUnsafeBufferPointer { sizes in
                    ZDICT_trainFromBuffer(out.baseAddress, out.count, input.baseAddress, sizes.baseAddress, UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(length) == 0, length > 0 else { return nil }
        return Array(dictionary[0..<length])
    }

    /// The first bytes (at most ``largestSample``) of the file at `path`, or `nil` when it cannot be read (the pack
    /// itself then reports the file).
    static func sample(path: String, size: Int64) -> [UInt8]? {
        try? PositionalRead.start(ofRegularFile: path, count: Int(min(size, Int64(largestSample))))
    }
}
