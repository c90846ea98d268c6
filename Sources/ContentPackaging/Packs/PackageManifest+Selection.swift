extension PackageManifest {
    /// The manifest of what `content` installs: its files at their install paths (in stream order, data offsets
    /// kept, so chunks still map to files), the folders above them and the selected empty folders, the sizes and
    /// counts of that, and the archive's chunk index unchanged. It describes the installed folder exactly, so
    /// `verify`, `repair` and updates read it as they read the manifest of a product without packs.
    public func selecting(_ content: SelectedContent) -> PackageManifest {
        var view = self
        view.files = content.files.map { index in
            var file = files[index]
            if let path = content.installPaths[index] { file.path = path }
            return file
        }
        // A link whose source is not installed is a file of its own here (its data offset still says where its bytes are).
        if let linkedFiles {
            var position: [Int: Int] = [:]
            for (viewIndex, index) in content.files.enumerated() { position[index] = viewIndex }
            let kept = linkedFiles.compactMap { link in
                position[link.file].flatMap { file in position[link.source].map { LinkedFile(file: file, source: $0) } }
            }
            view.linkedFiles = kept.isEmpty ? nil : kept
        }
        var folders = Set<String>()
        for file in view.files {
            var path = Substring(file.path)
            while let slash = path.lastIndex(of: "/") {
                path = path[..<slash]
                guard folders.insert(String(path)).inserted else { break }
            }
        }
        if let directories {
            let layout = content.layout, declaration = packs ?? PackDeclaration()
            let wanted = PackSelection(packs: Set(content.packs.filter(\.selected).map(\.id))).installedPacks(of: declaration)
            for directory in directories {
                let placement = layout.placement(of: directory)
                guard placement.choices.allSatisfy({ content.chosen[$0.group] == .some($0.value) }),
                      wanted.contains(declaration.packID(forInstallPath: Substring(placement.installPath)))
                        || placement.installPath == "Contents"
                else { continue }
                folders.insert(placement.installPath)
            }
        }
        view.directories = folders.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        view.uncompressedSize = view.files.reduce(0) { $0 + $1.size }
        view.entryCount = view.files.count + folders.count
        return view
    }
}
