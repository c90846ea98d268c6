/// What each pack, and each variant of it, amounts to in a packed archive: its files, their bytes, and the archive
/// bytes a device fetches for them (the compressed chunks holding them, a chunk shared with another pack counted in
/// both). `pack` prints it; a publisher sees what a German-speaking device fetches before publishing.
public struct PackSizeReport: Sendable, Equatable, Codable {
    /// One line: a pack, or one variant of a pack.
    public struct Line: Sendable, Equatable, Codable {
        /// The pack.
        public var pack: String
        /// Its policy.
        public var policy: DownloadPolicy
        /// The variant (`Contents/Voices language=de`), or `nil` for the pack's files that are the same on every device.
        public var variant: String?
        /// Files and their bytes.
        public var files: Int
        public var bytes: Int64
        /// Archive bytes of the chunks holding them, and of the archive's stored dictionary (``PackageManifest/dictionary``)
        /// when any chunk is fetched: a device fetches it once to decode them.
        public var fetchBytes: Int64
    }

    /// Packs in declaration order (core first), each pack's common files before its variants.
    public var lines: [Line]

    /// The report of `manifest` (a chunk-indexed one; a one-frame archive is fetched whole, so it reports its size).
    /// With `counting`, a line's fetch counts only those chunks (an update's: what a device holding the pack fetches
    /// to update it).
    public init(manifest: PackageManifest, counting: Set<Int>? = nil) {
        let declaration = manifest.packs ?? PackDeclaration()
        let everything = SelectedContent(manifest: manifest, selection: PackSelection(packs: Set(declaration.packIDs)))
        var groups: [String: (pack: String, variant: String?, files: Int, bytes: Int64, chunks: Set<Int>)] = [:]
        for (index, file) in manifest.files.enumerated() {
            let placement = everything.layout.placement(of: file.path)
            let pack = declaration.packID(forInstallPath: Substring(placement.installPath))
            let tags = placement.choices.map { choice in
                "\(choice.group) \(everything.layout.groups[choice.group]?.axis ?? "?")=\(choice.value ?? "(untagged)")"
            }
            let variant = tags.isEmpty ? nil : tags.joined(separator: ", ")
            let key = pack + "\u{0}" + (variant ?? "")
            var entry = groups[key] ?? (pack, variant, 0, 0, [])
            entry.files += 1
            entry.bytes += file.size
            entry.chunks.formUnion(manifest.chunkIndices(holding: index).filter { counting?.contains($0) ?? true })
            groups[key] = entry
        }
        let order = Dictionary(declaration.packIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        lines = groups.values.sorted { lhs, rhs in
            (order[lhs.pack] ?? 0, lhs.variant ?? "") < (order[rhs.pack] ?? 0, rhs.variant ?? "")
        }.map { entry in
            let fetch = manifest.chunks.map { chunks in
                let bytes = entry.chunks.reduce(Int64(0)) { $0 + chunks[$1].length }
                return bytes + (bytes > 0 ? manifest.dictionary?.length ?? 0 : 0)
            } ?? manifest.archiveSize
            return Line(
                pack: entry.pack, policy: declaration.policy(ofPack: entry.pack) ?? .essential, variant: entry.variant,
                files: entry.files, bytes: entry.bytes, fetchBytes: fetch)
        }
    }
}

extension PackageManifest {
    /// The chunks (indices into ``chunks``) holding file `index`'s data; none for an empty file or a manifest
    /// without a chunk index.
    public func chunkIndices(holding index: Int) -> Range<Int> {
        let file = files[index]
        guard let chunks, let start = file.dataOffset, file.size > 0 else { return 0..<0 }
        var low = 0, high = chunks.count  // the first chunk ending after the file's start
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].uncompressedOffset + chunks[middle].uncompressedLength <= start { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < chunks.count, chunks[end].uncompressedOffset < start + file.size { end += 1 }
        return low..<end
    }
}
