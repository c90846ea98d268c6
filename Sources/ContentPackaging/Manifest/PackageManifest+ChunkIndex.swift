extension PackageManifest {
    /// The largest chunk (uncompressed) any reader accepts, whatever the manifest's chunking says: a reader
    /// holds one chunk in memory, so a manifest must not be able to make it allocate more.
    public static let largestChunk: Int64 = 64 << 20

    /// The most bytes a zstd frame of `length` uncompressed bytes can take (libzstd's `ZSTD_compressBound`,
    /// rounded up), so a chunk index cannot declare a frame larger than any encoder writes.
    static func largestFrame(holding length: Int64) -> Int64 { length + length / 128 + (128 << 10) }

    /// What is wrong with the chunk index, one sentence each naming the chunk or file and the byte offset;
    /// empty when the index is sound or the manifest has none (schema 1).
    ///
    /// Sound means: the chunks follow each other without gap or overlap from offset 0 (or from the end of the
    /// archive's stored dictionary, ``dictionary``, whose record is sound), in the archive and in
    /// the tar stream; the last ends at ``archiveSize``; none is empty or longer than the chunking's maximum;
    /// every hash is 64 lowercase hex digits; every file's data lies inside the tar stream, after the
    /// previous file's, except a linked file's, which is its source's (``linkedFileProblems()``); and the
    /// directory list, when present, is sound (``directoryProblems()``). A client checks this before it trusts
    /// a single offset, so a manifest that lies about offsets or lengths is refused as a whole instead of
    /// steering reads or writes somewhere else.
    public func chunkIndexProblems() -> [String] {
        guard schema >= 2 || chunks != nil else { return [] }
        guard let chunks, !chunks.isEmpty else { return ["schema \(schema) manifest has no chunk index; pack it again"] }
        var problems: [String] = []
        if chunking == nil { problems.append("the chunk index has no chunking description; pack it again") }
        if let maximum = chunking?.maximum, maximum > Self.largestChunk || maximum <= 0 {
            problems.append("the chunking maximum \(maximum) is outside 1…\(Self.largestChunk) bytes; pack it again")
        }
        let maximum = min(chunking?.maximum ?? Self.largestChunk, Self.largestChunk)
        if let found = dictionary?.problems(archiveSize: archiveSize), !found.isEmpty { return problems + found }
        var offset: Int64 = firstChunkOffset
        var uncompressed: Int64 = 0
        for (index, chunk) in chunks.enumerated() {
            // The first chunk out of place ends the walk: its numbers cannot place the next one, and adding
            // them could overflow. A sound chunk is at most `largestFrame` long, so the sums stay small.
            let found = Self.problems(of: chunk, index: index, offset: offset, uncompressed: uncompressed, maximum: maximum)
            guard found.isEmpty else { return problems + found }
            offset = chunk.offset + chunk.length
            uncompressed = chunk.uncompressedOffset + chunk.uncompressedLength
        }
        if offset != archiveSize {
            problems.append("the chunks end at archive byte \(offset) but the archive has \(archiveSize) bytes")
        }
        return problems + fileOffsetProblems(streamLength: uncompressed) + linkedFileProblems() + directoryProblems()
    }

    /// Where the first chunk starts in the archive: after the stored dictionary, when there is one.
    public var firstChunkOffset: Int64 { dictionary?.length ?? 0 }

    /// The problems of one chunk that should start at `offset` and `uncompressed`.
    private static func problems(
        of chunk: ArchiveChunk, index: Int, offset: Int64, uncompressed: Int64, maximum: Int64
    ) -> [String] {
        var problems: [String] = []
        let name = "chunk \(index)"
        if chunk.offset != offset {
            problems.append("\(name) starts at archive byte \(chunk.offset), expected \(offset)")
        }
        if chunk.uncompressedOffset != uncompressed {
            problems.append("\(name) starts at tar-stream byte \(chunk.uncompressedOffset), expected \(uncompressed)")
        }
        if chunk.length <= 0 || chunk.uncompressedLength <= 0 {
            problems.append("\(name) at archive byte \(chunk.offset) is empty or negative")
        }
        if chunk.uncompressedLength > maximum {
            problems.append("\(name) at archive byte \(chunk.offset) holds \(chunk.uncompressedLength) bytes, more than the maximum \(maximum)")
        }
        if chunk.length > largestFrame(holding: maximum) {
            problems.append("\(name) at archive byte \(chunk.offset) is a \(chunk.length)-byte frame, larger than any chunk of \(maximum) bytes compresses to")
        }
        if chunk.sha256.utf8.count != 64 || !chunk.sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) {
            problems.append("\(name) at archive byte \(chunk.offset) has no valid SHA-256 ('\(chunk.sha256)')")
        }
        return problems
    }

    /// Files whose data offsets are missing, out of order or outside a tar stream of `streamLength` bytes (a linked
    /// file's offset is its source's, checked by ``linkedFileProblems()``).
    private func fileOffsetProblems(streamLength: Int64) -> [String] {
        var problems: [String] = []
        var end: Int64 = 0
        let linked = Set((linkedFiles ?? []).map(\.file))
        for (index, file) in files.enumerated() where !linked.contains(index) {
            guard let start = file.dataOffset else {
                problems.append("\(file.path) has no data offset in the chunk index; pack it again")
                continue
            }
            guard start >= 0, file.size >= 0 else {
                problems.append("\(file.path) has a negative data offset (\(start)) or size (\(file.size))")
                continue
            }
            if start < end {
                problems.append("\(file.path)'s data starts at tar-stream byte \(start), inside the data before it (ends at \(end))")
            }
            guard start <= streamLength - file.size else {
                problems.append("\(file.path)'s data (\(file.size) bytes at tar-stream byte \(start)) runs past the tar stream's \(streamLength) bytes")
                continue
            }
            end = max(end, start + file.size)
        }
        return problems
    }
}
