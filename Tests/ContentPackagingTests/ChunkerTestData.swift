import ContentPackaging

/// Deterministic test input and a reference way of cutting it, shared by the chunker's tests and
/// its benchmark.
enum ChunkerTestData {
    /// `count` pseudo-random bytes: splitmix64 outputs from `seed`, little-endian. Same arguments,
    /// same bytes, on every machine.
    static func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var state = seed
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: nextSplitMix64(&state).littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            var last = nextSplitMix64(&state).littleEndian
            withUnsafeBytes(of: &last) { word in
                for index in 0..<(count - offset) { raw[offset + index] = word[index] }
            }
            initialized = count
        }
    }

    /// One step of splitmix64: advances `state`, returns the next output.
    static func nextSplitMix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The lengths of the chunks of `bytes`, fed to a fresh chunker in pieces of the sizes in
    /// `pieces` (cycled; every size > 0), the final partial chunk included.
    static func chunkLengths(
        of bytes: UnsafeRawBufferPointer, parameters: ChunkingParameters, pieces: [Int] = [Int.max]
    ) -> [Int] {
        var chunker = ContentDefinedChunker(parameters: parameters)
        var lengths: [Int] = []
        var chunkStart = 0
        var offset = 0
        var pieceIndex = 0
        while offset < bytes.count {
            let end = offset + min(pieces[pieceIndex % pieces.count], bytes.count - offset)
            pieceIndex += 1
            var rest = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            var restStart = offset
            while let cut = chunker.nextBoundary(in: rest) {
                lengths.append(restStart + cut - chunkStart)
                chunkStart = restStart + cut
                restStart = chunkStart
                rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
            }
            offset = end
        }
        if chunkStart < bytes.count { lengths.append(bytes.count - chunkStart) }
        return lengths
    }

    /// ``chunkLengths(of:parameters:pieces:)`` of an array.
    static func chunkLengths(of bytes: [UInt8], parameters: ChunkingParameters, pieces: [Int] = [Int.max]) -> [Int] {
        bytes.withUnsafeBytes { chunkLengths(of: $0, parameters: parameters, pieces: pieces) }
    }
}
