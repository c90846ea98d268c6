/// The variant groups of a package's paths: each set of sibling paths that install at one path
/// (`Voices#language=de`, `Voices#language=fr`, and an untagged `Voices`), and what is wrong with them.
///
/// Built from the paths alone, so `validate`, `pack` and a client all see the same groups. A group is keyed by its
/// install path; its options are its tagged values and, when present, the untagged path (the last fallback).
struct VariantLayout: Sendable {
    /// One group.
    struct Group: Sendable, Equatable {
        /// Its one axis.
        var axis: String
        /// Its tagged values, as first written, by their compared form.
        var values: [String: String] = [:]
        /// Whether an untagged path installs at the group's path too.
        var hasUntagged = false
        /// Whether the options are folders (`true`) or files.
        var isFolder: Bool
    }

    /// A path's install path and the groups it passes through (their keys, with the value it takes in each).
    struct Placement: Sendable, Equatable {
        var installPath: String
        var choices: [(group: String, value: String?)]

        static func == (lhs: Placement, rhs: Placement) -> Bool {
            lhs.installPath == rhs.installPath && lhs.choices.elementsEqual(rhs.choices) { $0.group == $1.group && $0.value == $1.value }
        }
    }

    /// Groups by install path.
    private(set) var groups: [String: Group] = [:]
    /// What is wrong, one problem each.
    private(set) var problems: [PackProblem] = []

    /// Scans `paths` (files and folders of one package, `isFolder` for each) against `declaration`.
    init(paths: [(path: String, isFolder: Bool)], declaration: PackDeclaration) {
        for (path, isFolder) in paths where path.contains("#") { record(path, isFolder: isFolder, declaration: declaration) }
        guard !groups.isEmpty else { return }
        for (path, _) in paths {
            for (key, value) in placement(of: path).choices where value == nil { groups[key]?.hasUntagged = true }
        }
        checkPacks(paths: paths.lazy.filter { !$0.isFolder }.map(\.path), declaration: declaration)
    }

    /// Where `path` installs and which groups it passes through (untagged components count when a group is there).
    func placement(of path: String) -> Placement {
        guard !groups.isEmpty else { return Placement(installPath: path, choices: []) }
        var install = "", choices: [(String, String?)] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            let (name, tag) = VariantTag.split(component: component)
            install += install.isEmpty ? String(name) : "/" + name
            if let group = groups[install] {
                choices.append((install, tag.map { Self.compared($0.value, group.axis) }))
            }
        }
        return Placement(installPath: install, choices: choices)
    }

    /// Records the tagged components of one path.
    private mutating func record(_ path: String, isFolder: Bool, declaration: PackDeclaration) {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        var install = ""
        for (index, component) in components.enumerated() {
            let (name, tag) = VariantTag.split(component: component)
            install += install.isEmpty ? String(name) : "/" + name
            guard let tag else { continue }
            guard index >= 1, components[0] == "Contents" else {
                problems.append(PackProblem(key: nil, path: path, message: "only paths below Contents/ can be variants; ContentInfo.plist and Contents itself are the same for every device"))
                return
            }
            guard declaration.axis(named: tag.axis) != nil else {
                problems.append(PackProblem(key: nil, path: path, message: "names the axis '\(tag.axis)', which is neither standard (\(VariantTag.standardAxes.joined(separator: ", "))) nor declared under Variants in ContentInfo.plist"))
                return
            }
            let folder = index < components.count - 1 || isFolder
            if var group = groups[install] {
                guard group.axis == tag.axis, group.isFolder == folder else {
                    let what = group.axis != tag.axis ? "the axis '\(group.axis)' and '\(tag.axis)'" : "a file and a folder"
                    problems.append(PackProblem(key: nil, path: path, message: "collides: variants of \(install) use \(what); one path's variants share one axis and one kind"))
                    return
                }
                group.values[Self.compared(tag.value, tag.axis)] = group.values[Self.compared(tag.value, tag.axis)] ?? tag.value
                groups[install] = group
            } else {
                groups[install] = Group(axis: tag.axis, values: [Self.compared(tag.value, tag.axis): tag.value], isFolder: folder)
            }
        }
    }

    /// Every file of a group must lie in the pack the group's path lies in: a variant never selects files of another pack.
    private mutating func checkPacks(paths: some Sequence<String>, declaration: PackDeclaration) {
        guard !declaration.packs.isEmpty else { return }
        var reported = Set<String>()
        for path in paths {
            let placement = placement(of: path)
            let pack = declaration.packID(forInstallPath: Substring(placement.installPath))
            for (group, _) in placement.choices where declaration.packID(forInstallPath: Substring(group)) != pack {
                guard reported.insert(group).inserted else { continue }
                problems.append(PackProblem(key: nil, path: path, message: "is in pack '\(pack)' but its variant folder \(group) is in pack '\(declaration.packID(forInstallPath: Substring(group)))'; a variant may not select files outside its pack — list \(group) itself in one pack"))
            }
        }
    }

    /// The form values of `axis` are compared in.
    static func compared(_ value: String, _ axis: String) -> String {
        PackDeclaration.Axis(name: axis).normalized(value)
    }
}
