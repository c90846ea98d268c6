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
        checkInstallPaths(paths.lazy.map(\.path))
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
            guard let tag else {
                if let problem = Self.malformedTag(component, declaration: declaration) {
                    problems.append(PackProblem(key: nil, path: path, message: problem))
                    return
                }
                continue
            }
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
                let compared = Self.compared(tag.value, tag.axis)
                if let spelled = group.values[compared], spelled != tag.value {
                    problems.append(PackProblem(key: nil, path: path, message: "collides with the variant '\(tag.axis)=\(spelled)' of \(install): a device reads '\(tag.value)' and '\(spelled)' as one value; keep one spelling"))
                    return
                }
                group.values[compared] = tag.value
                groups[install] = group
            } else {
                groups[install] = Group(axis: tag.axis, values: [Self.compared(tag.value, tag.axis): tag.value], isFolder: folder)
            }
        }
    }

    /// A component that reads as a variant tag of a known axis but is not a well-formed one (`Voices#language=..`,
    /// `#language=de`): a name the author surely meant as a variant, which would otherwise install under its
    /// literal name. `nil` for a well-formed tag or a name with no such suffix (a `#` elsewhere is a character).
    static func malformedTag(_ component: Substring, declaration: PackDeclaration) -> String? {
        guard let hash = component.lastIndex(of: "#") else { return nil }
        let name = component[..<hash], suffix = component[component.index(after: hash)...]
        let parts = suffix.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, declaration.axis(named: String(parts[0])) != nil else { return nil }
        if name.isEmpty { return "'\(component)' names a variant of nothing: put the install name before '#', e.g. Voices#\(suffix)" }
        return "'\(component)' is not a variant name: '\(parts[1])' is not a value (1 to 64 letters, digits, '-', '_' or '.', not '.' or '..')"
    }

    /// Every path's install path must be one (``InstallPath``: no `.` or `..` component — `..#language=de` maps to
    /// `..` —, inside `Contents/`), and no two paths may install at one place for the same choices, or at places a
    /// case-insensitive or normalizing file system takes for one (``PathRules/collisionKey(_:)``).
    private mutating func checkInstallPaths(_ paths: some Sequence<String>) {
        var spellings: [String: String] = [:]  // collision key of an install path → its first spelling
        var owners: [String: String] = [:]  // install path and choices → the path that installs there
        for path in paths {
            let placement = placement(of: path)
            if placement.installPath != path, let problem = InstallPath.problem(placement.installPath) {
                problems.append(PackProblem(key: nil, path: path, message: "installs at '\(placement.installPath)', which \(problem); rename it"))
                continue
            }
            let key = PathRules.collisionKey(placement.installPath)
            if let other = spellings[key], other != placement.installPath {
                problems.append(PackProblem(key: nil, path: path, message: "installs at '\(placement.installPath)', which collides with '\(other)' on case-insensitive or normalizing file systems; rename one"))
                continue
            }
            spellings[key] = placement.installPath
            guard placement.installPath != path else { continue }  // as packed: the folder's own check passed it
            let choices = placement.choices.map { "\($0.group)\u{0}\($0.value ?? "")" }.joined(separator: "\u{0}")
            if let other = owners[key + "\u{1}" + choices], other != path {
                problems.append(PackProblem(key: nil, path: path, message: "installs at '\(placement.installPath)' for the same choice as \(other); rename one"))
                continue
            }
            owners[key + "\u{1}" + choices] = path
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
