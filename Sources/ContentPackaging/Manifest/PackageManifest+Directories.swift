extension PackageManifest {
    /// What is wrong with ``directories``, one sentence each naming the path; empty when the list is sound
    /// or absent (older manifests).
    ///
    /// Sound means: every path passes ``PathRules``, has no trailing `/` and lies in the layout (`Contents`
    /// or below it); the list is sorted byte-wise without repeats; no two directories collide ignoring case
    /// or normalization (``PathRules/collisionKey(_:)``); no directory is also a file; the parent of every
    /// directory and every file below `Contents` is listed; and ``entryCount`` is files plus directories.
    /// A client that builds the tree from the manifest alone checks this first, so a manifest cannot make
    /// it create a folder outside the content or one the archive does not hold.
    public func directoryProblems() -> [String] {
        guard let directories else { return [] }
        var problems: [String] = []
        var listed = Set<StoredPath>()
        var keys = Set<String>()
        var previous: [UInt8]?
        for directory in directories {
            let bytes = Array(directory.utf8)
            problems += Self.nameProblems(ofDirectory: directory, bytes: bytes)
            if let previous, !previous.lexicographicallyPrecedes(bytes) {
                problems.append("directory '\(directory)' is out of byte-wise order or listed twice")
            }
            previous = bytes
            // An exact repeat is reported as out of order above.
            let isRepeat = !listed.insert(StoredPath(bytes: bytes)).inserted
            if !keys.insert(PathRules.collisionKey(directory)).inserted, !isRepeat {
                problems.append("directory '\(directory)' collides with another directory ignoring case or normalization")
            }
        }
        for directory in directories {
            if let parent = Self.parent(of: directory), !listed.contains(StoredPath(parent)) {
                problems.append("directory '\(directory)' has a parent that is not listed ('\(parent)')")
            }
        }
        for file in files {  // by their stored bytes: no path is copied
            if listed.contains(file.storedPath) {
                problems.append("'\(file.path)' is listed as a file and as a directory")
            }
            if let parent = file.storedPath.parent, !listed.contains(parent) {
                problems.append("file '\(file.path)' has a parent directory that is not listed ('\(parent.string)')")
            }
        }
        if entryCount != files.count + directories.count {
            problems.append("entryCount is \(entryCount) but the manifest lists \(files.count) files and \(directories.count) directories")
        }
        return problems
    }

    /// The name and layout problems of one listed directory.
    private static func nameProblems(ofDirectory directory: String, bytes: [UInt8]) -> [String] {
        var problems = PathRules.problems(inPath: bytes).map { "directory '\(directory)': \($0)" }
        if bytes.last == UInt8(ascii: "/") { problems.append("directory '\(directory)' ends in '/'") }
        let contents = PackageValidator.contentsDirectoryName
        if directory != contents, !directory.hasPrefix(contents + "/") {
            problems.append("directory '\(directory)' lies outside '\(contents)/'")
        }
        return problems
    }

    /// The path up to its last `/`; `nil` at the root.
    private static func parent(of path: String) -> String? {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return String(decoding: path.utf8[..<slash], as: UTF8.self)
    }
}
