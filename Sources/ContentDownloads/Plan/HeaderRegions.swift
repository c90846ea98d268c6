internal import BitCollections
internal import ContentPackaging

/// The tar headers between files' data, checked against the signed manifest as chunks arrive in any order.
///
/// A chunk plan writes file data where the manifest says; the tar headers are never written anywhere. So that what
/// is installed is still exactly what `bsdtar -x` of the archive gives, the bytes between one file's data and the
/// next (a *region*: the padding's end, folder entries, pax records, then the next file's header) are gathered
/// from the verified chunks that hold them and parsed once whole: every entry passes ``EntryPolicy`` (the rules
/// of every download's headers, with the same words) but a file's header that is exactly the listed file (whose
/// path passed that policy when the plan admitted the manifest's paths); a folder must be one the manifest lists; the region must end
/// with the header of exactly the next file the manifest lists (path and size), its data starting right there;
/// the last region holds folders and then only the zeros that end an archive. A linked file (``PackageManifest/LinkedFile``)
/// has no data of its own: its header, a hard link to its source's path and nothing else, lies in the region
/// before the next file with data, where the manifest lists it, in order. A file the tar lacks, a tar entry
/// the manifest lacks, or a lying offset is refused, naming the path and the stream byte.
///
/// The regions checked are those whose bytes all lie in chunks the plan fetches: all of them for an install
/// from nothing; for an update, those around the files it writes from fetched chunks. A region's partial bytes
/// live in memory only, so a chunk placed before a restart is fetched again for its regions
/// (``chunksToRecheck(placed:checked:)``).
///
/// - Important: Owned by the install thread.
struct HeaderRegions {
    /// One region: its stream range, the file whose header ends it (`nil`: the archive's end), and the linked files
    /// whose hard-link headers come before that header (indices into the package's files, in order).
    struct Region: Sendable, Equatable {
        let range: Range<Int64>
        let file: Int?
        let links: Range<Int>
    }

    private let package: ChunkedPackage
    /// Every region, in stream order.
    let regions: [Region]
    /// The regions this plan checks (whose bytes all lie in fetched chunks): a bit each, as a hundred thousand files
    /// have as many regions.
    let checked: BitSet
    private let directories: Set<String>
    private var policy: EntryPolicy
    /// The folder entries met so far: the policy does not remember paths, and a folder may be entered once.
    private var seenFolders: Set<String> = []
    /// Bytes gathered so far for regions not yet whole.
    private var partial: [Int: (bytes: [UInt8], filled: Int)] = [:]
    /// Regions parsed and found right.
    private(set) var passed = BitSet()

    /// The largest pax extended header accepted (a path and a few numbers; libarchive writes far less).
    static let largestPaxHeader: Int64 = 1 << 20

    /// The largest region accepted: a file's header with a pax path record, and folder entries before it.
    static func largestRegion(directories: Int) -> Int64 { (64 << 10) + Int64(directories) * 2048 }

    /// The most bytes a linked file's entry takes: a pax header with its path and link path, and the hard link's own.
    static let largestLinkEntry: Int64 = 4096

    /// The regions of `package` and which of them the chunks `fetched` cover.
    init(package: ChunkedPackage, fetched: Set<Int>) {
        self.package = package
        regions = Self.regions(of: package)
        directories = Set(package.manifest.directories ?? [])
        // Every header is matched to the listed file or folder it must be, and the manifest's paths were checked
        // as a set before the plan (`PlanBuilder`): the policy checks each entry alone, and `seenDirectories`
        // refuses a folder entry met twice.
        policy = EntryPolicy(
            limits: InstallLimits(maxTotalBytes: package.manifest.uncompressedSize, maxEntries: InstallLimits.maxEntriesCap),
            keepsPlan: false, remembersPaths: false)
        var covered = BitSet(reservingCapacity: regions.count)
        for (index, region) in regions.enumerated() where !region.range.isEmpty {
            let chunks = Self.chunks(overlapping: region.range, in: package)
            if chunks.allSatisfy(fetched.contains) { covered.insert(index) }
        }
        checked = covered
    }

    /// Regions from the manifest: before each data of a file (the linked files before it with it), then the
    /// archive's end.
    static func regions(of package: ChunkedPackage) -> [Region] {
        var regions: [Region] = []
        regions.reserveCapacity(package.files.count + 1)
        var start: Int64 = 0
        var firstLink = 0
        for (index, file) in package.files.enumerated() where package.sources[index] == nil {
            regions.append(Region(range: start..<max(start, file.dataOffset!), file: index, links: firstLink..<index))
            start = max(start, ChunkedPackage.headersAfter(file))
            firstLink = index + 1
        }
        regions.append(Region(range: start..<max(start, package.streamLength), file: nil, links: firstLink..<package.files.count))
        return regions
    }

    /// What is wrong with the regions the manifest implies, before any byte is fetched: a region too short for
    /// the header it must hold, files whose data overlap, or more bytes between two files than headers take.
    static func problems(in package: ChunkedPackage) -> [String] {
        var problems: [String] = []
        var start: Int64 = 0
        var links: Int64 = 0
        let largest = largestRegion(directories: package.manifest.directories?.count ?? 0)
        for (index, file) in package.files.enumerated() {
            guard package.sources[index] == nil else {
                links += 1
                continue
            }
            let offset = file.dataOffset!
            defer { links = 0 }
            if offset - start < Int64(TarHeaderBlock.length) * (1 + links) {
                problems.append("\(file.path): its data offset \(offset) leaves no room for its tar header (and \(links) linked files' before it) after stream byte \(start)")
            } else if offset - start > largest + links * largestLinkEntry {
                problems.append("\(file.path): \(offset - start) bytes lie before its data where only tar headers belong (at most \(largest))")
            }
            start = ChunkedPackage.headersAfter(file)
            if problems.count >= 5 { break }
        }
        if start > package.streamLength {
            problems.append("the last file's data ends at stream byte \(start), past the tar stream's \(package.streamLength) bytes")
        }
        return problems
    }

    /// Chunks whose frames overlap stream `range`.
    static func chunks(overlapping range: Range<Int64>, in package: ChunkedPackage) -> [Int] {
        var low = 0, high = package.chunks.count
        while low < high {
            let middle = (low + high) / 2
            let chunk = package.chunks[middle]
            if chunk.uncompressedOffset + chunk.uncompressedLength <= range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var result: [Int] = []
        while low < package.chunks.count, package.chunks[low].uncompressedOffset < range.upperBound {
            result.append(low)
            low += 1
        }
        return result
    }

    /// Regions found right in an earlier run (from the placed-chunks log).
    mutating func alreadyPassed(_ regions: BitSet) { passed.formUnion(regions.intersection(checked)) }

    /// Whether every region the plan checks was found right.
    var complete: Bool { passed.isSuperset(of: checked) }

    /// Placed chunks that must come again because a region they hold was not checked before a restart.
    func chunksToRecheck(placed: Set<Int>) -> Set<Int> {
        var chunks = Set<Int>()
        for index in checked.subtracting(passed) {
            let overlapping = Self.chunks(overlapping: regions[index].range, in: package)
            if overlapping.contains(where: placed.contains) { chunks.formUnion(overlapping) }
        }
        return chunks
    }

    /// Takes a verified chunk's bytes (chunk `index`): gathers the parts of checked regions it holds and parses
    /// each region that became whole.
    /// Returns the regions found right by this chunk.
    @discardableResult
    mutating func take(chunk index: Int, bytes: UnsafeRawBufferPointer) throws(InstallError) -> [Int] {
        var found: [Int] = []
        let start = package.chunks[index].uncompressedOffset, end = start + Int64(bytes.count)
        var low = 0, high = regions.count
        while low < high {
            let middle = (low + high) / 2
            if regions[middle].range.upperBound <= start { low = middle + 1 } else { high = middle }
        }
        var region = low
        while region < regions.count, regions[region].range.lowerBound < end {
            defer { region += 1 }
            guard checked.contains(region), !passed.contains(region) else { continue }
            let range = regions[region].range
            let from = max(start, range.lowerBound), to = min(end, range.upperBound)
            guard from < to else { continue }
            var gathered = partial[region] ?? ([UInt8](repeating: 0, count: range.count), 0)
            gathered.bytes.withUnsafeMutableBytes { target in
                UnsafeMutableRawBufferPointer(rebasing: target[Int(from - range.lowerBound)..<Int(to - range.lowerBound)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[Int(from - start)..<Int(to - start)]))
            }
            gathered.filled += Int(to - from)
            if gathered.filled < range.count {
                partial[region] = gathered
                continue
            }
            partial[region] = nil
            try parse(gathered.bytes, region: region)
            passed.insert(region)
            found.append(region)
        }
        return found
    }

    /// Parses one whole region: headers (and pax records) up to exactly the next listed file's data, or the
    /// end-of-archive zeros in the last region.
    private mutating func parse(_ bytes: [UInt8], region index: Int) throws(InstallError) {
        let region = regions[index]
        let block = TarHeaderBlock.length
        var offset = 0
        var overrides: [String: [UInt8]] = [:]
        var nextLink = region.links.lowerBound
        while offset < bytes.count {
            guard let header = try headerBlock(bytes, at: offset, in: region) else {
                try checkLinksEnded(nextLink, region: region)
                return
            }
            offset += block
            switch header.typeFlag {
            case UInt8(ascii: "x"):
                offset += try paxRecords(bytes, at: offset, size: header.size, in: region, into: &overrides)
            case UInt8(ascii: "g"), UInt8(ascii: "L"), UInt8(ascii: "K"):
                throw .unsafeEntry(path: String(decoding: header.name, as: UTF8.self), reason: "is a tar '\(Character(UnicodeScalar(header.typeFlag)))' header, which `iapcontent pack` never writes")
            case UInt8(ascii: "1"):
                var entry = ArchiveEntryHeader(header, overrides: overrides)
                entry.size = overrides["size"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? header.size  // the declared data, which must be none
                overrides = [:]
                try admitLink(entry, expected: nextLink, header: offset - block, in: region)
                nextLink += 1
            default:
                let parsed = ArchiveEntryHeader(header, overrides: overrides)
                overrides = [:]
                if offset == bytes.count, isListedFile(parsed, of: region) {
                    try checkLinksEnded(nextLink, region: region)
                    return
                }
                let entry = Self.spelledAsListed(parsed, file: region.file.map { package.files[$0] })
                if try admit(entry, header: offset - block, data: offset, endsRegion: offset == bytes.count, in: region) {
                    try checkLinksEnded(nextLink, region: region)
                    return
                }
            }
        }
        if let fileIndex = region.file {
            let file = package.files[fileIndex]
            throw .archiveMismatch(
                path: file.path,
                reason: "is listed in the signed package manifest (data at stream byte \(file.dataOffset!)), but the archive has no tar header for it there; the archive does not match its manifest — tell the publisher")
        }
    }

    /// The tar header block at `offset` of `region`'s bytes; `nil` at the end-of-archive zeros of the last region.
    private func headerBlock(_ bytes: [UInt8], at offset: Int, in region: Region) throws(InstallError) -> TarHeaderBlock? {
        let block = TarHeaderBlock.length
        guard bytes.count - offset >= block else {
            throw refusal("the tar headers end mid-block at stream byte \(region.range.lowerBound + Int64(offset))")
        }
        let slice = Array(bytes[offset..<(offset + block)])
        if region.file == nil, slice.allSatisfy({ $0 == 0 }) {
            guard let stray = bytes[offset...].firstIndex(where: { $0 != 0 }) else { return nil }
            throw refusal("data after the end of the archive at stream byte \(region.range.lowerBound + Int64(stray))")
        }
        let parsed: Result<TarHeaderBlock, TarHeaderError> = slice.withUnsafeBytes { raw in
            do throws(TarHeaderError) { return .success(try TarHeaderBlock(raw)) } catch { return .failure(error) }
        }
        switch parsed {
        case .success(let header): return header
        case .failure(let error):
            throw refusal("the tar header at stream byte \(region.range.lowerBound + Int64(offset)) is damaged: \(error.reason)")
        }
    }

    /// Reads the pax records of a `size`-byte pax header whose data starts at `offset` (the ones that change the
    /// next entry: path, link path, size); returns the bytes they take, padded to whole blocks.
    private func paxRecords(
        _ bytes: [UInt8], at offset: Int, size: Int64, in region: Region, into overrides: inout [String: [UInt8]]
    ) throws(InstallError) -> Int {
        let block = Int64(TarHeaderBlock.length)
        let at = region.range.lowerBound + Int64(offset)
        guard size <= Self.largestPaxHeader, Int64(bytes.count - offset) >= size else {
            throw refusal("a \(size)-byte pax header at stream byte \(at) does not fit before the next file's data")
        }
        do {
            for record in try PaxRecords.parse(Array(bytes[offset..<(offset + Int(size))])) where ["path", "linkpath", "size"].contains(record.key) {
                overrides[record.key] = record.value
            }
        } catch {
            throw refusal("the pax header before stream byte \(at) is damaged: \(error.reason)")
        }
        return Int((size + block - 1) / block * block)
    }

    /// Whether `entry` is exactly the file `region` ends with: a regular file of its listed path (byte for byte) and
    /// size. Such a header needs no check of its own: the plan admitted every listed path through the same
    /// ``EntryPolicy`` as a set (`PlanBuilder.admit`), and at 300 000 small files checking each again is a second
    /// of CPU.
    private func isListedFile(_ entry: ArchiveEntryHeader, of region: Region) -> Bool {
        guard entry.kind == .regular, let index = region.file else { return false }
        let file = package.files[index]
        return file.size == entry.size && file.storedPath.utf8.elementsEqual(entry.pathBytes)
    }

    /// Admits one entry whose header is at `header` and data at `data` (offsets in the region): a listed folder, or
    /// the listed file the region ends with; true when it was that file (the region is done).
    private mutating func admit(_ entry: ArchiveEntryHeader, header: Int, data: Int, endsRegion: Bool, in region: Region) throws(InstallError) -> Bool {
        func at(_ position: Int) -> Int64 { region.range.lowerBound + Int64(position) }
        let planned = try policy.admit(entry)
        if planned.kind == .directory {
            guard entry.size == 0 else { throw .unsafeEntry(path: entry.path, reason: "a directory entry carries \(entry.size) bytes of data") }
            guard directories.contains(planned.path) else {
                throw .unsafeEntry(path: planned.path, reason: "is a folder in the archive that the signed package manifest does not list; the archive does not match its manifest — tell the publisher")
            }
            guard seenFolders.insert(planned.path).inserted else {
                throw .unsafeEntry(path: planned.path, reason: "is a folder entry the archive holds twice (again at stream byte \(at(header))); the archive does not match its manifest — tell the publisher")
            }
            return false
        }
        guard let fileIndex = region.file, endsRegion else {
            throw .unsafeEntry(
                path: planned.path,
                reason: "is in the archive (\(planned.size) bytes, header at stream byte \(at(header))) but not where the signed package manifest lists a file; the archive does not match its manifest — tell the publisher")
        }
        let expected = package.files[fileIndex]
        guard expected.storedPath.utf8.elementsEqual(planned.path.utf8), expected.size == planned.size else {
            throw .unsafeEntry(
                path: planned.path,
                reason: "the tar header (\(planned.size) bytes, data at stream byte \(at(data))) disagrees with the signed package manifest, which lists \(expected.path) (\(expected.size) bytes) there; the archive does not match its manifest — tell the publisher")
        }
        return true
    }

    /// Admits a hard-link entry whose header is at `header` (offset in the region): it must be the linked file
    /// `expected` the manifest lists next in this region, linked to that file's source, with no data.
    private func admitLink(_ entry: ArchiveEntryHeader, expected: Int, header: Int, in region: Region) throws(InstallError) {
        let at = region.range.lowerBound + Int64(header)
        guard region.links.contains(expected), let source = package.sources[expected] else {
            throw .unsafeEntry(
                path: entry.path,
                reason: "is a hard link to '\(entry.linkTarget ?? "")' (header at stream byte \(at)) where the signed package manifest lists no linked file; links are never installed")
        }
        let file = package.files[expected], target = package.files[source]
        guard file.storedPath.utf8.elementsEqual(entry.pathBytes), let link = entry.linkTarget,
              target.storedPath.utf8.elementsEqual(link.utf8), entry.size == 0
        else {
            throw .unsafeEntry(
                path: entry.path,
                reason: "the hard link to '\(entry.linkTarget ?? "")' (\(entry.size) bytes, header at stream byte \(at)) disagrees with the signed package manifest, which lists \(file.path) as the same file as \(target.path) there; the archive does not match its manifest — tell the publisher")
        }
    }

    /// Throws when the region ended (at its file's header, or the archive's end) before the hard link of every
    /// linked file the manifest lists in it, from `nextLink` on.
    private func checkLinksEnded(_ nextLink: Int, region: Region) throws(InstallError) {
        guard nextLink < region.links.upperBound else { return }
        let file = package.files[nextLink]
        throw .archiveMismatch(
            path: file.path,
            reason: "is listed in the signed package manifest as the same file as \(package.files[package.sources[nextLink] ?? nextLink].path), but the archive has no hard link for it before stream byte \(region.range.upperBound); the archive does not match its manifest — tell the publisher")
    }

    /// `entry` with its path spelled by the listed file's own stored path when its bytes are that path, so the
    /// policy, when it remembers paths, shares the manifest's buffer instead of keeping a copy.
    private static func spelledAsListed(_ entry: ArchiveEntryHeader, file: PackageManifest.File?) -> ArchiveEntryHeader {
        guard entry.kind == .regular, let file, file.storedPath.utf8.elementsEqual(entry.pathBytes) else { return entry }
        var spelled = ArchiveEntryHeader(
            storedPath: file.storedPath, kind: entry.kind, size: entry.size, permissions: entry.permissions)
        spelled.linkTarget = entry.linkTarget
        return spelled
    }

    private func refusal(_ what: String) -> InstallError {
        .archiveMismatch(path: "the archive", reason: "\(what); the archive does not match its signed manifest — tell the publisher")
    }
}
