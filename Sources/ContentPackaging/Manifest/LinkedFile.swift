extension PackageManifest {
    /// A file whose bytes the archive stores once, for an earlier file with the same content: its tar entry is a
    /// hard link (typeflag `1`, no data) to the earlier file's path, so an archive of two variants that share a
    /// music file or `credits.txt` is no larger than its distinct content, and stays a tar that `bsdtar -xf` extracts.
    ///
    /// The linked file keeps its own record in ``PackageManifest/files`` (path, size, SHA-256): its size and
    /// SHA-256 are the source's, and its data offset is the source's, so every reader that takes a file's bytes
    /// from the tar stream by offset gets the right ones. A client installs it like any file, from the source's
    /// chunks, whether or not it installs the source too.
    public struct LinkedFile: Codable, Sendable, Equatable, Hashable {
        /// The linked file (index into ``PackageManifest/files``).
        public var file: Int
        /// The file whose data the tar stream holds (index into ``PackageManifest/files``, before ``file``; never a
        /// linked file itself, so links never chain or loop).
        public var source: Int

        /// A link of `file` to `source`.
        public init(file: Int, source: Int) {
            self.file = file
            self.source = source
        }
    }

    /// The source of each linked file (``linkedFiles``), by the linked file's index; empty without links.
    public var linkSources: [Int: Int] {
        Dictionary((linkedFiles ?? []).map { ($0.file, $0.source) }, uniquingKeysWith: { first, _ in first })
    }

    /// What is wrong with ``linkedFiles``, one sentence each naming the file: a link out of range or out of order,
    /// to a later file, to itself or to a linked file, or between files whose size, SHA-256 or data offset differ.
    /// Empty when the list is sound or absent.
    public func linkedFileProblems() -> [String] {
        guard let linkedFiles else { return [] }
        var problems: [String] = []
        var previous = -1
        let linked = Set(linkedFiles.map(\.file))
        for (position, link) in linkedFiles.enumerated() {
            guard link.file > previous, link.file < files.count else {
                problems.append("linked file \(position) (file \(link.file)) is out of range or out of order in a manifest of \(files.count) files")
                break
            }
            previous = link.file
            let file = files[link.file]
            guard link.source >= 0, link.source < link.file else {
                problems.append("\(file.path) is linked to file \(link.source), which is not an earlier file of the manifest")
                continue
            }
            let source = files[link.source]
            if linked.contains(link.source) {
                problems.append("\(file.path) is linked to \(source.path), which is itself linked to another file")
            } else if file.size != source.size || file.storedSHA256.caseFolded != source.storedSHA256.caseFolded {
                problems.append("\(file.path) (\(file.size) bytes, SHA-256 \(file.sha256)) is linked to \(source.path), whose size or SHA-256 differs (\(source.size) bytes, \(source.sha256))")
            } else if file.dataOffset != source.dataOffset {
                problems.append("\(file.path) is linked to \(source.path) but its data offset \(file.dataOffset.map(String.init) ?? "none") is not the source's (\(source.dataOffset.map(String.init) ?? "none"))")
            }
            if problems.count >= 5 { break }
        }
        return problems
    }
}
