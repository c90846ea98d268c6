public import Foundation

extension PackDeclaration {
    /// The most packs a product declares (Background Assets and Play Asset Delivery both stop at 100).
    public static let maxPacks = 100

    /// Reads the `Packs` and `Variants` keys of a `ContentInfo.plist`'s bytes; every problem is returned, one each,
    /// with the key path and what to write instead. A plist without either key gives an empty declaration.
    public static func read(plist data: Data) -> (declaration: PackDeclaration, problems: [PackProblem]) {
        guard let dictionary = (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any] else {
            return (PackDeclaration(), [])  // ContentInfo's own check reports an unreadable plist
        }
        return read(dictionary)
    }

    /// Reads the declaration from a plist's top-level dictionary (see ``read(plist:)``).
    public static func read(_ dictionary: [String: Any]) -> (declaration: PackDeclaration, problems: [PackProblem]) {
        var problems: [PackProblem] = []
        var packs: [Pack] = []
        if let value = dictionary["Packs"] {
            if let entries = value as? [String: Any] {
                for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
                    if let pack = readPack(id: id, entry, into: &problems) { packs.append(pack) }
                }
                if entries.count > maxPacks {
                    problems.append(PackProblem(key: "Packs", message: "declares \(entries.count) packs; at most \(maxPacks) are allowed — merge some"))
                }
            } else {
                problems.append(PackProblem(key: "Packs", message: "must be a dictionary of pack identifiers to {Policy, Paths}"))
            }
        }
        var axes: [Axis] = []
        if let value = dictionary["Variants"] {
            if let entries = value as? [String: Any] {
                for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                    if let axis = readAxis(name: name, entry, into: &problems) { axes.append(axis) }
                }
            } else {
                problems.append(PackProblem(key: "Variants", message: "must be a dictionary of axis names to {Default, Fallback}"))
            }
        }
        let declaration = PackDeclaration(packs: packs, axes: axes)
        let sizes = declaration.sizeProblems().filter { $0.key != "Packs" }  // the pack count is reported above
        problems += sizes.isEmpty ? declaration.overlapProblems() : sizes
        return (declaration, problems)
    }

    /// One `Packs` entry, or `nil` with its problems recorded.
    private static func readPack(id: String, _ entry: Any, into problems: inout [PackProblem]) -> Pack? {
        let key = "Packs.\(id)"
        var ok = true
        if !VariantTag.isAxisName(Substring(id)) {
            problems.append(PackProblem(key: key, message: "'\(id)' is not a pack identifier: use lowercase letters, digits and '-', starting with a letter"))
            ok = false
        } else if id == corePackID {
            problems.append(PackProblem(key: key, message: "'core' is the implicit essential pack of every file no pack names; choose another identifier"))
            ok = false
        }
        guard let fields = entry as? [String: Any] else {
            problems.append(PackProblem(key: key, message: "must be a dictionary with Policy and Paths"))
            return nil
        }
        for unknown in fields.keys.sorted() where unknown != "Policy" && unknown != "Paths" {
            problems.append(PackProblem(key: "\(key).\(unknown)", message: "is not a pack key; a pack has Policy and Paths"))
            ok = false
        }
        let known = DownloadPolicy.allCases.map(\.rawValue).joined(separator: ", ")
        var policy: DownloadPolicy?
        switch fields["Policy"] {
        case let text as String:
            policy = DownloadPolicy(rawValue: text)
            if policy == nil { problems.append(PackProblem(key: "\(key).Policy", message: "'\(text)' is not a download policy; use one of \(known)")) }
        default:
            problems.append(PackProblem(key: "\(key).Policy", message: "is missing or not a string; use one of \(known)"))
        }
        var paths: [String] = []
        if let list = fields["Paths"] as? [Any], !list.isEmpty {
            for (index, item) in list.enumerated() {
                guard let path = item as? String else {
                    problems.append(PackProblem(key: "\(key).Paths[\(index)]", message: "must be a string"))
                    ok = false
                    continue
                }
                if let problem = pathProblem(path) {
                    problems.append(PackProblem(key: "\(key).Paths[\(index)]", message: problem))
                    ok = false
                } else {
                    paths.append(path.hasSuffix("/") ? String(path.dropLast()) : path)
                }
            }
        } else {
            problems.append(PackProblem(key: "\(key).Paths", message: "is missing or empty; list the folders under Contents/ the pack holds"))
            ok = false
        }
        guard ok, let policy else { return nil }
        return Pack(id: id, policy: policy, paths: paths)
    }

    /// Why `path` cannot name a pack's folder, or `nil`.
    static func pathProblem(_ path: String) -> String? {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let components = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count >= 2, components[0] == "Contents" else {
            return "'\(path)' is not under Contents/; a pack holds folders or files below Contents/ (ContentInfo.plist is always in the core pack)"
        }
        if components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "'\(path)' has an empty, '.' or '..' component; write the path from the package root, e.g. Contents/Voices"
        }
        if trimmed.contains("#") {
            return "'\(path)' names a variant; name the install path (Contents/Voices, not Contents/Voices#language=de): a pack holds all variants of its folders"
        }
        return nil
    }

    /// Two declared paths where one is the other or lies below it: a file would belong to two packs.
    ///
    /// Each path's ancestors are looked up in a table of every declared path, so the cost is the paths' total
    /// length, not their count squared.
    func overlapProblems() -> [PackProblem] {
        var problems: [PackProblem] = []
        let all = packs.flatMap { pack in pack.paths.map { (id: pack.id, path: $0) } }.sorted { $0.path < $1.path }
        var owners: [String: [String]] = [:]
        for (id, path) in all { owners[path, default: []].append(id) }
        var reportedTwice = Set<String>()
        for (id, path) in all {
            if let ids = owners[path], ids.count > 1, reportedTwice.insert(path).inserted {
                problems.append(PackProblem(
                    key: "Packs.\(ids[0]).Paths",
                    message: "\(path) is listed twice (pack \(ids[1])); packs may not overlap — list each folder in one pack"))
            }
            var ancestor = Substring(path)
            while let slash = ancestor.lastIndex(of: "/") {
                ancestor = ancestor[..<slash]
                for outer in owners[String(ancestor)] ?? [] {
                    problems.append(PackProblem(
                        key: "Packs.\(outer).Paths",
                        message: "\(ancestor) holds \(path) (pack \(id)); packs may not overlap — list each folder in one pack"))
                }
            }
        }
        return problems
    }
}
