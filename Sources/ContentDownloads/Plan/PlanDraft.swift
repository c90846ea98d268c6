internal import BitCollections
internal import ContentPackaging

/// What an update from the installed version to a new one needs, decided from the two manifests alone:
/// which new files are links to unchanged installed files, which are written, which of the chunks covering
/// the written files are rebuilt from installed files, and which are fetched.
///
/// Pure: the caller says which installed files it may use (``make(package:installed:usable:)``), so the same
/// decision serves the update itself, the size `restore` and `status` report, and the publisher's report
/// (every installed file usable).
struct PlanDraft: Sendable, Equatable {
    /// A new file (index into the package's files, stream order) made a link to an installed path.
    struct Link: Sendable, Equatable {
        /// The new file (index into the package's files).
        var file: Int { Int(newIndex) }
        /// The installed file (index into the installed manifest's files).
        var installedFile: Int { Int(installedIndex) }
        /// 8 bytes a link, no path held: an update of a million unchanged files holds a million links.
        private let newIndex: Int32, installedIndex: Int32

        /// A link of the new file `file` to the installed file `installedFile` (manifests count files in Int32).
        init(file: Int, installedFile: Int) {
            precondition(file <= Int(Int32.max) && installedFile <= Int(Int32.max), "a manifest lists at most 2^31 files")
            newIndex = Int32(file)
            installedIndex = Int32(installedFile)
        }
    }

    /// A chunk rebuilt from installed files.
    struct LocalChunk: Sendable, Equatable {
        let chunk: Int
        let source: InstalledChunks.Source
    }

    /// New files linked to installed ones.
    var links: [Link] = []
    /// New files written by the update from chunks (indices, ascending).
    var written: [Int] = []
    /// New files a precomputed patch made (indices, ascending): the tree takes each whole, checked, and no chunk is
    /// fetched for it.
    var patched: [Int] = []
    /// Chunks rebuilt locally, in stream order.
    var local: [LocalChunk] = []
    /// Chunks fetched, in stream order.
    var fetch: [Int] = []

    /// Bytes of archive the fetched chunks take.
    func fetchBytes(in package: ChunkedPackage) -> Int64 { fetch.reduce(0) { $0 + package.chunks[$1].length } }

    /// Decides the update to `package` from `installed`; `usable` says whether an installed file (its record in
    /// the installed manifest) may be linked — asked at most once per file, only for files the update could link;
    /// `patched` whether a patch made a new file (by index) that cannot be linked.
    static func make(
        package: ChunkedPackage, installed: InstalledChunks, usable: (PackageManifest.File) -> Bool,
        patched isPatched: (Int) -> Bool = { _ in false }
    ) -> PlanDraft {
        var draft = PlanDraft()
        // A bit per installed file, not a table of paths: a hundred thousand answers in 25 KB.
        let count = installed.manifest.files.count
        var asked = BitSet(reservingCapacity: count), linkable = BitSet(reservingCapacity: count)
        func may(_ index: Int) -> Bool {
            if asked.contains(index) { return linkable.contains(index) }
            asked.insert(index)
            guard usable(installed.manifest.files[index]) else { return false }
            linkable.insert(index)
            return true
        }
        draft.links.reserveCapacity(package.files.count)  // most files of an update are unchanged
        for index in package.selectedFiles ?? Array(package.files.indices) {
            let file = package.files[index]
            if file.size > 0, let source = installed.files(holding: file).first(where: may) {
                draft.links.append(Link(file: index, installedFile: source))
            } else if file.size > 0, isPatched(index) {
                draft.patched.append(index)
            } else {
                draft.written.append(index)
            }
        }
        draft.placeChunks(package: package, installed: installed)
        return draft
    }

    /// An install of `written` (a selection of the package's files) from nothing: the chunks overlapping their data
    /// are fetched, no other.
    static func fromNothing(package: ChunkedPackage, written: [Int]) -> PlanDraft {
        var draft = PlanDraft(written: written)
        draft.placeChunks(package: package, installed: nil)
        return draft
    }

    /// Every chunk that overlaps a written file's data is rebuilt when an installed file held it, else fetched.
    /// Any installed file may be read for a chunk, a changed or damaged one too: a rebuilt chunk is used only
    /// when it matches its signed hash, so a damaged file still gives its intact chunks. A linked file's data is its
    /// source's, so its source's chunks come whether or not the source is written too.
    private mutating func placeChunks(package: ChunkedPackage, installed: InstalledChunks?) {
        let files = written.map { package.files[$0] }.filter { $0.size > 0 }.sorted { $0.dataOffset! < $1.dataOffset! }
        var next = 0
        for (index, chunk) in package.chunks.enumerated() {
            let start = chunk.uncompressedOffset, end = start + chunk.uncompressedLength
            while next < files.count, ChunkedPackage.end(of: files[next]) <= start { next += 1 }
            guard next < files.count, files[next].dataOffset! < end else { continue }
            if let source = installed?.chunksBySHA[chunk.storedSHA256.caseFolded], source.length == chunk.uncompressedLength {
                local.append(LocalChunk(chunk: index, source: source))
            } else {
                fetch.append(index)
            }
        }
    }
}
