extension PackDeclaration {
    /// What is wrong with a declaration as decoded from a manifest (which `validate` never saw): identifiers, paths,
    /// overlaps, fallback cycles and the pack count, one problem each. A client refuses a manifest with any.
    public func problems() -> [PackProblem] {
        var problems: [PackProblem] = []
        if packs.count > Self.maxPacks {
            problems.append(PackProblem(key: "Packs", message: "declares \(packs.count) packs; at most \(Self.maxPacks) are allowed"))
        }
        for pack in packs {
            if !VariantTag.isAxisName(Substring(pack.id)) || pack.id == Self.corePackID {
                problems.append(PackProblem(key: "Packs.\(pack.id)", message: "'\(pack.id)' is not a pack identifier a publisher may declare"))
            }
            if pack.paths.isEmpty { problems.append(PackProblem(key: "Packs.\(pack.id).Paths", message: "is empty")) }
            for path in pack.paths {
                if let problem = Self.pathProblem(path) ?? (path.hasSuffix("/") ? "ends in '/'" : nil) {
                    problems.append(PackProblem(key: "Packs.\(pack.id).Paths", message: problem))
                }
            }
        }
        problems += overlapProblems()
        for axis in axes {
            if !VariantTag.isAxisName(Substring(axis.name)) {
                problems.append(PackProblem(key: "Variants.\(axis.name)", message: "'\(axis.name)' is not an axis name"))
            }
            if let cycle = axis.fallbackCycle() {
                problems.append(PackProblem(key: "Variants.\(axis.name).Fallback", message: "has a cycle (\(cycle.joined(separator: " → ")))"))
            }
        }
        return problems
    }
}
