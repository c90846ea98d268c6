/// What a device asks of a product: which packs, and its profile for choosing variants.
///
/// Kept by a client per installed product, so an update installs the same selection and a switch
/// (`language=fr`) or an on-demand request changes it. The core pack and every essential pack are always in it.
public struct PackSelection: Codable, Sendable, Equatable {
    /// The packs asked for beyond the essential ones (prefetch and on-demand packs), by identifier.
    public var packs: Set<String>
    /// The device's values per axis.
    public var profile: DeviceProfile

    /// Creates a selection.
    public init(packs: Set<String> = [], profile: DeviceProfile = DeviceProfile()) {
        self.packs = packs
        self.profile = profile
    }

    /// The packs of `declaration` this selection installs: the core pack, every essential pack, and those asked for.
    public func installedPacks(of declaration: PackDeclaration) -> Set<String> {
        var ids: Set<String> = [PackDeclaration.corePackID]
        for pack in declaration.packs where pack.policy == .essential || packs.contains(pack.id) { ids.insert(pack.id) }
        return ids
    }
}

/// A ``PackSelection`` applied to one manifest: the files a device installs and where, and each pack's size.
public struct SelectedContent: Sendable {
    /// What one pack amounts to under the selection's variants.
    public struct PackSize: Sendable, Equatable, Codable {
        /// The pack.
        public var id: String
        /// Its policy.
        public var policy: DownloadPolicy
        /// Whether the selection installs it.
        public var selected: Bool
        /// Files and bytes of the pack under the chosen variants.
        public var files: Int
        public var bytes: Int64
    }

    /// The manifest's files the device installs (indices, stream order).
    public let files: [Int]
    /// The install path of each of ``files`` whose path names a variant (others install at their path).
    public let installPaths: [Int: String]
    /// The value chosen for each variant group (its install path), `nil` for the untagged path.
    public let chosen: [String: String?]
    /// Every pack (core first) with its size under the chosen variants.
    public let packs: [PackSize]
    /// Why the manifest's paths cannot be installed as variants, one each (the client refuses such a manifest).
    public let problems: [PackProblem]
    /// The variant groups the choice was made over (none for a manifest without a declaration).
    let layout: VariantLayout

    /// Applies `selection` to `manifest`. A manifest without a declaration (``PackageManifest/packs`` `nil`) is one
    /// core pack without variants, whatever its names hold: every file, at its path.
    public init(manifest: PackageManifest, selection: PackSelection) {
        let declaration = manifest.packs ?? PackDeclaration()
        // A declaration a client refuses is not applied: nothing it says (a pack declared twice, a chain of any
        // depth) is walked, and the problems say why the manifest is refused.
        let declared = declaration.problems()
        guard declared.isEmpty else {
            (files, installPaths, chosen, packs, problems) = ([], [:], [:], [], declared)
            layout = VariantLayout(paths: [], declaration: PackDeclaration())
            return
        }
        var paths = manifest.files.map { (path: $0.path, isFolder: false) }
        paths += (manifest.directories ?? []).map { (path: $0, isFolder: true) }
        let layout = manifest.packs == nil ? VariantLayout(paths: [], declaration: declaration) : VariantLayout(paths: paths, declaration: declaration)
        var chosen: [String: String?] = [:]
        for (key, group) in layout.groups {
            let axis = declaration.axis(named: group.axis) ?? PackDeclaration.Axis(name: group.axis)
            let chain = axis.chain(preferring: selection.profile.values[group.axis] ?? []).map(axis.normalized)
            if let value = chain.first(where: { group.values[$0] != nil }) {
                chosen[key] = .some(value)
            } else if group.hasUntagged {
                chosen[key] = .some(nil)
            } else {  // nothing preferred, no default, no untagged path: the first value, so the app gets something
                chosen[key] = .some(group.values.keys.min()!)
            }
        }
        let wanted = selection.installedPacks(of: declaration)
        var files: [Int] = [], renamed: [Int: String] = [:]
        var sizes = Dictionary(declaration.packIDs.map { ($0, (files: 0, bytes: Int64(0))) }, uniquingKeysWith: { first, _ in first })
        for (index, file) in manifest.files.enumerated() {
            let placement = layout.placement(of: file.path)
            guard placement.choices.allSatisfy({ chosen[$0.group] == .some($0.value) }) else { continue }
            let pack = declaration.packID(forInstallPath: Substring(placement.installPath))
            sizes[pack, default: (0, 0)].files += 1
            sizes[pack, default: (0, 0)].bytes += file.size
            guard wanted.contains(pack) else { continue }
            files.append(index)
            if placement.installPath != file.path { renamed[index] = placement.installPath }
        }
        self.files = files
        installPaths = renamed
        self.chosen = chosen
        packs = declaration.packIDs.map { id in
            let size = sizes[id] ?? (0, 0)
            return PackSize(id: id, policy: declaration.policy(ofPack: id) ?? .essential, selected: wanted.contains(id), files: size.files, bytes: size.bytes)
        }
        problems = layout.problems
        self.layout = layout
    }

    /// Each variant group (its install path, e.g. `Contents/Voices`): its axis and the values the manifest offers,
    /// sorted; what a status report shows beside the value chosen (``chosen``).
    public var variantGroups: [String: (axis: String, values: [String])] {
        layout.groups.mapValues { ($0.axis, $0.values.values.sorted()) }
    }

    /// The install path of the manifest's file `index`.
    public func installPath(of index: Int, in manifest: PackageManifest) -> String {
        installPaths[index] ?? manifest.files[index].path
    }
}
