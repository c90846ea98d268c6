extension PackageValidator {
    /// The declaration a manifest carries: `nil` for a folder with neither a declaration nor a variant path (its
    /// manifest is what it always was), else the declaration, empty when only standard-axis variants are used.
    static func declarationToCarry(_ declaration: PackDeclaration, entries: [FolderEntry]) -> PackDeclaration? {
        guard declaration.isEmpty else { return declaration }
        let paths = entries.map { (path: $0.path, isFolder: $0.kind == .directory) }
        return VariantLayout(paths: paths, declaration: declaration).groups.isEmpty ? nil : declaration
    }

    /// The problems of the `Packs` and `Variants` declaration and of the variant paths (`Voices#language=de`), one
    /// each: the declaration's own, each path's variant name, axis and collisions, variants reaching into another
    /// pack, and a pack path that names nothing in `Contents/`.
    static func packProblems(
        _ packs: (declaration: PackDeclaration, problems: [PackProblem]), entries: [FolderEntry]
    ) -> [ValidationProblem] {
        var problems = packs.problems.map { ValidationProblem(path: ContentInfo.fileName, message: $0.description) }
        let declaration = packs.declaration
        let hasVariants = entries.contains { $0.pathBytes.contains(UInt8(ascii: "#")) }
        guard hasVariants || !declaration.isEmpty else { return problems }
        let paths = entries.map { (path: $0.path, isFolder: $0.kind == .directory) }
        let layout = VariantLayout(paths: paths, declaration: declaration)
        problems += layout.problems.map { ValidationProblem(path: $0.path ?? ContentInfo.fileName, message: $0.message) }
        guard !declaration.packs.isEmpty else { return problems }
        let installPaths = paths.map { Substring(layout.placement(of: $0.path).installPath) }
        for pack in declaration.packs {
            for path in pack.paths where !installPaths.contains(where: { PackDeclaration.isWithin($0, path) }) {
                problems.append(ValidationProblem(
                    path: ContentInfo.fileName,
                    message: "Packs.\(pack.id).Paths: \(path) names nothing in the folder; fix the path or remove it"))
            }
        }
        return problems
    }
}
