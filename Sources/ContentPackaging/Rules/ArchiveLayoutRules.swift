/// The layout rules of a hosted-content archive, applied header by header as the archive is read.
///
/// An archive may hold only regular files, directories, and hard links to a regular file below `Contents/` it held
/// earlier (how `pack` stores an identical file once; recognized only while paths are remembered), with names that
/// pass ``PathRules``,
/// each path once, no two paths (or implied parent directories) that differ only by case or
/// Unicode normalization, `ContentInfo.plist` (a regular file) and `Contents` (a directory) at
/// the root and everything else below `Contents/`. The packer only writes such archives; these
/// rules are what a reader checks before trusting one.
///
/// `iapcontent inspect` (``PackageInspector``) and the client's installer (`EntryPolicy` in
/// ContentDownloads) both walk an archive through one value of this type, so they cannot drift
/// apart: an entry inspect reports as misplaced, unsafe, duplicated or colliding is one the
/// installer refuses, and the reverse. The value remembers every path seen so far (its own and
/// its implied parents, by ``PathRules/collisionKey(_:)``) and which root entries were present.
///
/// **Memory.** It keeps hashes, not keys: per path a 64-bit hash of its bytes and one of its collision key
/// (seeded per process), with the spelling it was given (the header's ``StoredPath``, which shares the caller's
/// buffer: a manifest's paths, or the header's own bytes, so nothing is copied). A million paths
/// take about 60 MB (the hash table's 12-byte slots, two per path at its load, then the spellings and kinds in
/// arrays of their own) instead of three copies of every path. Two different paths with the same hash make the
/// second a duplicate or a collision — a refusal, never an acceptance: equal paths always hash equal, so
/// nothing the exact comparison would refuse gets through (for a million paths, about one chance in 10^7 of
/// refusing a sound package).
package struct ArchiveLayoutRules: Sendable {
    /// The hash of the exact bytes of every entry path (trailing `/` of directories removed).
    private var entryPaths: Set<Int> = []
    /// Entries and implied parent directories, by the hash of their collision key: the position of the first
    /// spelling in ``spellings``. A slot is 12 bytes; the spellings and kinds are kept once each, in arrays of their
    /// own size (a million paths: about 43 MB instead of 67 in one table of spellings).
    private var claims: [Int: UInt32] = [:]
    /// The claimed paths' spellings, by position.
    private var spellings: [StoredPath] = []
    /// Whether each claimed path is a directory, by position.
    private var claimedDirectory: [Bool] = []
    /// Whether each claimed path is a regular file (or a hard link to one) accepted without refusal, by position:
    /// what a later hard link may name.
    private var claimedFile: [Bool] = []

    /// The parent folders (as split) of the last path whose parents were all claimed without a conflict: a path
    /// with the same parents, byte for byte, claims them again for nothing (an archive lists a folder's files
    /// together, so at 300 000 files this skips most of four lowercasings and hashes a file).
    private var lastClaimedParents: [String] = []

    /// Whether paths are remembered, for duplicates and collisions; a walk whose every path was already
    /// checked as a set (a manifest's) and is matched one by one against it needs only the per-entry rules.
    private let remembersPaths: Bool

    /// True once a regular file `ContentInfo.plist` was seen at the root.
    package private(set) var hasContentInfo = false
    /// True once `Contents` was seen at the root as a directory, or anything below it.
    package private(set) var hasContents = false

    /// Rules for a new archive walk: nothing seen yet. `remembersPaths` false checks each entry alone (kind,
    /// name, place in the layout), not against earlier ones. `expectedEntries`, when known (a manifest's count),
    /// sizes the remembered paths once: grown by doubling, a hundred thousand of them hold the old and the new
    /// table at once.
    package init(remembersPaths: Bool = true, expectedEntries: Int = 0) {
        self.remembersPaths = remembersPaths
        if remembersPaths, expectedEntries > 0 {
            entryPaths.reserveCapacity(expectedEntries)
            claims.reserveCapacity(expectedEntries)
            spellings.reserveCapacity(expectedEntries)
            claimedDirectory.reserveCapacity(expectedEntries)
            claimedFile.reserveCapacity(expectedEntries)
        }
    }

    /// The path claimed under collision-key hash `key`, if any.
    private func claim(_ key: Int) -> (spelling: StoredPath, isDirectory: Bool, isFile: Bool)? {
        claims[key].map { (spellings[Int($0)], claimedDirectory[Int($0)], claimedFile[Int($0)]) }
    }

    /// Claims `key` for `spelling`, replacing what it held; `isFile` for an accepted regular file or link to one.
    private mutating func setClaim(_ key: Int, spelling: StoredPath, isDirectory: Bool, isFile: Bool = false) {
        if let position = claims[key] {
            spellings[Int(position)] = spelling
            claimedDirectory[Int(position)] = isDirectory
            claimedFile[Int(position)] = isFile
            return
        }
        claims[key] = UInt32(spellings.count)
        spellings.append(spelling)
        claimedDirectory.append(isDirectory)
        claimedFile.append(isFile)
    }

    /// The root entries a package must hold that were not seen: `ContentInfo.plist`, then `Contents`.
    package var missingRootEntries: [String] {
        (hasContentInfo ? [] : [ContentInfo.fileName]) + (hasContents ? [] : [PackageValidator.contentsDirectoryName])
    }

    /// Checks one header against the rules and every earlier header, and remembers it.
    ///
    /// Refusals come in this order: kind, name, trailing `/` on a non-directory, layout, parent
    /// directories (the first conflict only; checked for safe names only), then duplicate or
    /// collision. A refused entry is remembered too, so later entries are still checked against it.
    ///
    /// The path is split at `/` characters of the Swift `String` (grapheme clusters), so a `/`
    /// followed by a combining mark separates nothing and such a name lies outside the layout.
    package mutating func classify(_ header: ArchiveEntryHeader) -> ArchiveLayoutVerdict {
        let isDirectory = header.kind == .directory
        var path = header.path
        var bytes = header.pathBytes
        var spelling = header.storedPath
        if isDirectory, bytes.count > 1, path.hasSuffix("/") {
            path.removeLast()
            bytes.removeLast()
            spelling = spelling.prefix(spelling.count - 1)
        }
        var refusals: [ArchiveLayoutRefusal] = []
        let acceptedLink = header.kind == .hardlink && namesAcceptedFile(header.linkTarget)
        if header.kind != .regular, !isDirectory, !acceptedLink { refusals.append(.unsupportedKind(header.kind)) }
        let nameProblems = PathRules.problems(inPath: header.pathBytes)
        if !nameProblems.isEmpty { refusals.append(.unsafeName(nameProblems)) }
        if !isDirectory, header.path.hasSuffix("/") { refusals.append(.nonDirectoryEndsInSlash) }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let place = Self.place(of: components, kind: header.kind)
        if place == nil { refusals.append(.outsideLayout) }
        if remembersPaths {
            if nameProblems.isEmpty, let refusal = claimParentsUnlessClaimed(of: components) { refusals.append(refusal) }
            let isFile = refusals.isEmpty && (header.kind == .regular || acceptedLink)
            if let refusal = claimPath(path, spelling: spelling, bytes: bytes, isDirectory: isDirectory, isFile: isFile) {
                refusals.append(refusal)
            }
        }
        if place == .contentInfo { hasContentInfo = true }
        if place == .contentsDirectory || place == .content { hasContents = true }
        return ArchiveLayoutVerdict(path: path, place: place, refusals: refusals)
    }

    /// Whether `target` (a hard link's) is, byte for byte, the path of a regular file below `Contents/` accepted
    /// earlier in this walk (where `pack` links): never `ContentInfo.plist`, a directory, a later entry, the link
    /// itself, a path outside the archive or a refused entry.
    private func namesAcceptedFile(_ target: String?) -> Bool {
        guard remembersPaths, let target, target.hasPrefix(PackageValidator.contentsDirectoryName + "/"),
              let existing = claim(PathRules.collisionKey(target).hashValue)
        else { return false }
        return existing.isFile && !existing.isDirectory && existing.spelling.utf8.elementsEqual(target.utf8)
    }

    /// Where a path split at `/` sits in the layout, or `nil` outside it.
    private static func place(of components: [String], kind: ArchiveEntryHeader.Kind) -> ArchiveLayoutPlace? {
        if components == [ContentInfo.fileName] {
            return kind == .regular ? .contentInfo : nil
        }
        guard components[0] == PackageValidator.contentsDirectoryName else { return nil }
        if components.count > 1 { return .content }
        return kind == .directory ? .contentsDirectory : nil
    }

    /// ``claimParents(of:)``, skipped when the last path's parents were the same bytes and all claimed: a parent's
    /// claim, once a folder's, stays one (a later entry of that path is refused, not claimed).
    private mutating func claimParentsUnlessClaimed(of components: [String]) -> ArchiveLayoutRefusal? {
        let parents = components.dropLast()
        if !parents.isEmpty, parents.elementsEqual(lastClaimedParents, by: { $0.utf8.elementsEqual($1.utf8) }) { return nil }
        let refusal = claimParents(of: components)
        lastClaimedParents = refusal == nil ? Array(parents) : []
        return refusal
    }

    /// Claims every parent directory of the path as a directory; the first conflict, if any.
    private mutating func claimParents(of components: [String]) -> ArchiveLayoutRefusal? {
        var parent = ""
        for component in components.dropLast() {
            parent = parent.isEmpty ? component : parent + "/" + component
            let key = PathRules.collisionKey(parent).hashValue
            guard let existing = claim(key) else {
                setClaim(key, spelling: StoredPath(parent), isDirectory: true)
                continue
            }
            if !existing.isDirectory { return .parentIsNotDirectory(parent: existing.spelling.string) }
            if !existing.spelling.utf8.elementsEqual(parent.utf8) {
                return .parentCollides(parent: parent, other: existing.spelling.string)
            }
        }
        return nil
    }

    /// Claims the entry's own path (`path` as text, `spelling` the same path kept for later messages); the
    /// duplicate or collision it makes, if any.
    ///
    /// Only a duplicate by exact bytes is found for a name that is not valid UTF-8: collision
    /// keys need text.
    private mutating func claimPath(
        _ path: String, spelling: StoredPath, bytes: [UInt8], isDirectory: Bool, isFile: Bool
    ) -> ArchiveLayoutRefusal? {
        guard entryPaths.insert(bytes.hashValue).inserted else { return .duplicate }
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        let key = PathRules.collisionKey(path).hashValue
        if let existing = claim(key) {
            if !existing.spelling.utf8.elementsEqual(path.utf8) { return .collides(other: existing.spelling.string) }
            // The same spelling not yet an entry: the implied parent of an earlier entry.
            if !isDirectory { return .duplicate }
        }
        setClaim(key, spelling: spelling, isDirectory: isDirectory, isFile: isFile)
        return nil
    }
}
