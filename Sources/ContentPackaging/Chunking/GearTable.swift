/// The 256 pseudo-random 64-bit values the gear hash of ``ContentDefinedChunker`` adds, one per
/// byte value.
///
/// Generated at first use by splitmix64 from the fixed seed ``seed``: entry `i` is the `i + 1`-th
/// output. Every chunk boundary of every archive depends on these numbers, and archives must be
/// byte-reproducible on every machine for ever, so neither the seed nor the generator may ever
/// change (a test pins entries of the table and boundaries computed with it). Generating the table
/// instead of spelling out 256 literals keeps the source short and makes its origin checkable.
enum GearTable {
    /// The splitmix64 seed: the ASCII bytes of "iapconte", big-endian.
    static let seed: UInt64 = 0x6961_7063_6F6E_7465

    /// The table, indexed by byte value.
    static let values: [UInt64] = {
        var state = seed
        return (0..<256).map { _ in splitMix64(&state) }
    }()

    /// One step of splitmix64 (Steele, Lea and Flood, 2014), the generator Java's
    /// `SplittableRandom` uses: advances `state` and returns the next output.
    static func splitMix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
