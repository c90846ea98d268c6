extension PackDeclaration {
    /// What is wrong with a declaration as decoded from a manifest (which `validate` never saw): identifiers, paths,
    /// overlaps, fallback cycles and the pack count, one problem each. A client refuses a manifest with any.
    public func problems() -> [PackProblem] {
        // The sizes first: a declaration over them is refused without walking it (the checks below are linear
        // or bounded by these limits, so a hostile manifest costs little to refuse).
        let sizes = sizeProblems()
        guard sizes.isEmpty else { return sizes }
        var problems: [PackProblem] = []
        var seen = Set<String>()
        for pack in packs {
            if !VariantTag.isAxisName(Substring(pack.id)) || pack.id == Self.corePackID {
                problems.append(PackProblem(key: "Packs.\(pack.id)", message: "'\(pack.id)' is not a pack identifier a publisher may declare"))
            } else if !seen.insert(pack.id).inserted {
                problems.append(PackProblem(key: "Packs.\(pack.id)", message: "is declared twice; a pack identifier names one pack"))
            }
            if pack.paths.isEmpty { problems.append(PackProblem(key: "Packs.\(pack.id).Paths", message: "is empty")) }
            for path in pack.paths {
                if let problem = Self.pathProblem(path) ?? (path.hasSuffix("/") ? "ends in '/'" : nil) {
                    problems.append(PackProblem(key: "Packs.\(pack.id).Paths", message: problem))
                }
            }
        }
        problems += overlapProblems()
        var axisNames = Set<String>()
        for axis in axes {
            if !VariantTag.isAxisName(Substring(axis.name)) {
                problems.append(PackProblem(key: "Variants.\(axis.name)", message: "'\(axis.name)' is not an axis name"))
            } else if !axisNames.insert(axis.name).inserted {
                problems.append(PackProblem(key: "Variants.\(axis.name)", message: "is declared twice; an axis name names one axis"))
            }
            let values = [axis.defaultValue].compactMap { $0 } + axis.fallback.keys + axis.fallback.values.joined()
            if let bad = values.first(where: { !VariantTag.isValue(Substring($0)) }) {
                problems.append(PackProblem(key: "Variants.\(axis.name)", message: "'\(bad)' is not a value (1 to 64 letters, digits, '-', '_' or '.')"))
            }
            if let cycle = axis.fallbackCycle() {
                problems.append(PackProblem(key: "Variants.\(axis.name).Fallback", message: "has a cycle (\(cycle.joined(separator: " → ")))"))
            }
        }
        return problems
    }

    /// The most axes a product declares.
    public static let maxAxes = 16
    /// The most paths one pack lists.
    public static let maxPathsPerPack = 256
    /// The most values an axis's `Fallback` maps, and the most values one of them falls back to.
    public static let maxFallbackEntries = 256

    /// Declarations too large to be a product's: more than ``maxPacks`` packs, ``maxPathsPerPack`` paths in a
    /// pack, ``maxAxes`` axes or ``maxFallbackEntries`` fallback entries (or targets of one) — what a hostile
    /// manifest uses to make a client spend its time or stack; one problem each, checked before anything else.
    func sizeProblems() -> [PackProblem] {
        var problems: [PackProblem] = []
        if packs.count > Self.maxPacks {
            problems.append(PackProblem(key: "Packs", message: "declares \(packs.count) packs; at most \(Self.maxPacks) are allowed"))
        }
        if let pack = packs.first(where: { $0.paths.count > Self.maxPathsPerPack }) {
            problems.append(PackProblem(key: "Packs.\(pack.id).Paths", message: "lists \(pack.paths.count) paths; at most \(Self.maxPathsPerPack) are allowed — list their common folder"))
        }
        if axes.count > Self.maxAxes {
            problems.append(PackProblem(key: "Variants", message: "declares \(axes.count) axes; at most \(Self.maxAxes) are allowed"))
        }
        for axis in axes where axis.fallback.count > Self.maxFallbackEntries || axis.fallback.values.contains(where: { $0.count > Self.maxFallbackEntries }) {
            problems.append(PackProblem(key: "Variants.\(axis.name).Fallback", message: "has more than \(Self.maxFallbackEntries) entries or targets of one entry; at most \(Self.maxFallbackEntries) are allowed"))
        }
        return problems
    }
}
