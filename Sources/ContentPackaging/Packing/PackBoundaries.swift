/// Where a chunk-indexed archive starts a new chunk so that packs and variants never share one: before the first
/// entry of each run of entries of one pack and one variant (in tar-stream order). A device then fetches a pack, or
/// switches a variant, without a byte of another: small files of German voices are never grouped into a frame with
/// French ones.
struct PackBoundaries {
    /// A key per entry (its pack and variant), or `nil` for a product without packs or variants.
    private let keys: [Int]?

    /// The boundaries of `entries` (tar order) under `declaration` (`nil`: none).
    init(entries: [PackEntry], declaration: PackDeclaration?) {
        guard let declaration else {
            keys = nil
            return
        }
        let paths = entries.map { (path: $0.storedPath.string, isFolder: $0.kind == .directory) }
        let layout = VariantLayout(paths: paths, declaration: declaration)
        var known: [String: Int] = [:]
        keys = paths.map { entry in
            let placement = layout.placement(of: entry.path)
            let key = declaration.packID(forInstallPath: Substring(placement.installPath)) + "\u{0}"
                + placement.choices.map { "\($0.group)=\($0.value ?? "")" }.joined(separator: "\u{0}")
            if let id = known[key] { return id }
            known[key] = known.count
            return known.count - 1
        }
    }

    /// Whether entry `index` begins another pack's or variant's run.
    func startsRun(at index: Int) -> Bool {
        guard let keys, index > 0 else { return false }
        return keys[index] != keys[index - 1]
    }

    /// Before entry `index`: ends the chunk when a new run begins, else lets `budget` group it with the entries
    /// before (``ArchiveWriter/groupBoundary(entryBytes:budget:)``).
    func boundary(before index: Int, entryBytes: Int64, budget: FileGroupBudget?, writer: inout ArchiveWriter) throws(PackError) {
        do {
            if startsRun(at: index) {
                try writer.cutChunk()
            } else if let budget {
                try writer.groupBoundary(entryBytes: entryBytes, budget: budget)
            }
        } catch {
            throw .archive(error)
        }
    }
}
