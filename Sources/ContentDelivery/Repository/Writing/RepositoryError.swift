package import SystemSupport

/// Why a repository command refused: each case names the file, role or key and what to do.
package enum RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `repo init` on a folder that already holds a root.
    case alreadyInitialized(path: String)
    /// Another `iapcontent repo` command is changing the repository.
    case busy(path: String)
    /// A versioned file that must be new already exists: another publisher wrote it.
    case alreadyExists(path: String)
    /// A metadata file the repository needs is not there.
    case missingMetadata(path: String)
    /// A metadata file could not be read or verified.
    case metadata(path: String, MetadataError)
    /// The keys given cannot sign `role`: fewer of its keys than its threshold.
    case notEnoughKeys(role: String, given: [String], roleKeys: [String], threshold: Int)
    /// A role's threshold is above its number of keys, or below 1.
    case badThreshold(role: String, threshold: Int, keys: Int)
    /// `repo key` names a role whose keys it does not manage.
    case unknownRole(String)
    /// A role would be left without keys.
    case noKeysLeft(role: String)
    /// A file's bytes are not what the catalog says.
    case targetMismatch(path: String, expected: String, actual: String)
    /// The catalog folder to publish from cannot be read.
    case unreadableCatalog(path: String, detail: String)
    /// The bin bit length is outside 1…32.
    case badBitLength(Int)
    /// A signer could not sign.
    case signingFailed(keyID: String, detail: String)
    /// A file operation failed.
    case fileSystem(FileSystemError)
    /// The published copy's timestamp is newer than this folder's: another publisher published after it.
    case staleCopy(local: Int64, live: Int64)

    /// A message naming what to fix.
    package var description: String {
        switch self {
        case .alreadyInitialized(let path):
            return "\(path) already holds a TUF repository (a root exists); use `repo rotate-root` or `repo key` to change keys"
        case .busy(let path):
            return "another `iapcontent repo` command is changing \(path) (it holds .lock); run this one when it is done"
        case .alreadyExists(let path):
            return "\(path) already exists: another publisher wrote this version meanwhile; re-run the command"
        case .missingMetadata(let path):
            return "\(path) is missing; is this a repository written by `iapcontent repo init`?"
        case .metadata(let path, let error):
            return "\(path): \(error)"
        case .notEnoughKeys(let role, let given, let roleKeys, let threshold):
            return "the keys given (\(given.isEmpty ? "none" : given.joined(separator: ", "))) include fewer than \(threshold) "
                + "of the keys of role \(role) (\(roleKeys.joined(separator: ", "))); pass the role's key files"
        case .badThreshold(let role, let threshold, let keys):
            return "role \(role): threshold \(threshold) with \(keys) key(s); the threshold must be between 1 and the number of keys"
        case .unknownRole(let role):
            return "role \(role) has no online keys to change; name targets, snapshot, timestamp or bins (root keys: `repo rotate-root`)"
        case .noKeysLeft(let role):
            return "role \(role) would have no keys left; add its new key before revoking the last one"
        case .targetMismatch(let path, let expected, let actual):
            return "\(path) is \(actual) but the catalog says \(expected); rebuild the catalog folder"
        case .unreadableCatalog(let path, let detail):
            return "cannot read the catalog in \(path): \(detail); point at a folder written by `iapcontent catalog`"
        case .badBitLength(let bits):
            return "--bins-bit-length \(bits) is outside 1…32"
        case .signingFailed(let keyID, let detail):
            return "key \(keyID) could not sign: \(detail)"
        case .fileSystem(let error):
            return error.description
        case .staleCopy(let local, let live):
            return "the published repository is at timestamp version \(live), this folder at \(local): another publisher published after it; "
                + "publish from the folder that wrote version \(live), or bring this one up to date first"
        }
    }
}
