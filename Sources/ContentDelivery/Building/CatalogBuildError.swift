public import SystemSupport
public import ContentPackaging

/// Why `iapcontent catalog` refused to build: each case names the file and what to do.
public enum CatalogBuildError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The input folder holds no `*.tar.zst` archive.
    case noArchives(directory: String)
    /// An archive has no `<name>.manifest` (or `<name>.manifest.json`) beside it.
    case missingManifest(archive: String, expected: String)
    /// A manifest could not be read or decoded.
    case unreadableManifest(path: String, detail: String)
    /// A manifest is larger than a client fetches (`limit`, `PackageManifest.largestCompactManifest`).
    case manifestTooLarge(path: String, bytes: Int, limit: Int)
    /// The archive bytes disagree with their manifest (`field` is `sha256` or `length`).
    case manifestMismatch(archive: String, field: String, manifest: String, actual: String)
    /// Two archives carry the same product and (numerically) the same version.
    case duplicateVersion(productID: String, version: ContentVersion, archives: [String])
    /// `--catalog-version` is not above the catalog already in the output folder.
    case catalogVersionNotIncreasing(requested: UInt64, previous: UInt64)
    /// The catalog already in the output folder cannot be read, so no version can follow it.
    case unreadablePreviousCatalog(path: String, detail: String)
    /// A file operation failed.
    case fileSystem(FileSystemError)
    /// The catalog or signature could not be encoded.
    case encoding(String)
    /// A patch beside the archives cannot be offered: unreadable, or made to another manifest than the one published.
    case unusablePatch(path: String, detail: String)

    /// A message a publisher can act on.
    public var description: String {
        switch self {
        case .noArchives(let directory):
            return "no *.tar.zst archives in \(directory); run `iapcontent pack` first or point at the folder it wrote"
        case .missingManifest(let archive, let expected):
            return "\(archive) has no manifest: expected \(expected) beside it; re-run `iapcontent pack`"
        case .unreadableManifest(let path, let detail):
            return "cannot read manifest \(path): \(detail); re-run `iapcontent pack`"
        case .manifestTooLarge(let path, let bytes, let limit):
            return "the manifest of \(path) is \(bytes) bytes in the compact format, more than the \(limit) bytes a client fetches "
                + "(PackageManifest.largestCompactManifest); split the content into several products"
        case .manifestMismatch(let archive, let field, let manifest, let actual):
            return "\(archive): \(field) is \(actual) but its manifest says \(manifest); the archive was changed "
                + "or the wrong manifest sits beside it — re-pack it"
        case .duplicateVersion(let productID, let version, let archives):
            return "product \(productID) version \(version) appears more than once (\(archives.joined(separator: ", "))); "
                + "remove all but one"
        case .catalogVersionNotIncreasing(let requested, let previous):
            return "--catalog-version \(requested) is not above the published catalog's \(previous); clients would "
                + "reject it as a rollback — pass a higher number or omit it (default: previous + 1)"
        case .unreadablePreviousCatalog(let path, let detail):
            return "cannot read the existing \(path) (\(detail)); fix or remove it, or pass --catalog-version"
        case .fileSystem(let error):
            return error.description
        case .encoding(let detail):
            return "cannot encode the catalog: \(detail)"
        case .unusablePatch(let path, let detail):
            return "cannot offer the patch \(path): \(detail); write it again with `iapcontent patch` from the manifests `pack` wrote, or remove it"
        }
    }
}
