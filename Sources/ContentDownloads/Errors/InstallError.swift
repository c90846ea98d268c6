public import ContentPackaging
import Glibc

/// Why an install, update, delete or recovery failed — naming the entry, path or number involved.
///
/// Every failure leaves the previously installed version intact and nothing written outside the
/// store; the message says what to do next.
public enum InstallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An archive entry is unsafe (link, device, `..`, absolute path, bad name, duplicate, collision).
    case unsafeEntry(path: String, reason: String)
    /// An entry lies outside the hosted-content layout (`ContentInfo.plist` and `Contents/**` only).
    case outsideLayout(path: String)
    /// An entry (or the whole archive, path `"*"`) is larger than declared or than the hard cap.
    case sizeExceeded(path: String, declared: Int64, written: Int64)
    /// More entries than declared or than the hard cap.
    case tooManyEntries(declared: Int, found: Int)
    /// The installed `ContentInfo.plist` does not say what the catalog promised (or is missing/unreadable).
    case wrongContent(expected: String, found: String)
    /// The archive file does not match the catalog's length or SHA-256.
    case archiveMismatch(path: String, reason: String)
    /// A signed manifest declares packs or variants this client refuses (packs that overlap, a fallback cycle,
    /// colliding variant paths, a variant selecting files outside its pack, a policy it does not know): refused
    /// before any archive byte, since the publisher, not a new download, must fix it.
    case refusedManifest(path: String, reason: String)
    /// Not enough free space on the store's file system.
    case insufficientSpace(needed: Int64, available: Int64)
    /// A product identifier that cannot be used as a folder name.
    case invalidProductID(String)
    /// libarchive could not read the archive (damaged, truncated, not tar/zstd).
    case archive(ArchiveError)
    /// A system call failed on a path inside the store.
    case system(operation: String, path: String, errno: Int32)
    /// A fetched chunk is not what the signed plan expects (`index` in the manifest's chunk index): it is fetched
    /// again, from another mirror when there is one.
    case badChunk(index: Int, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .unsafeEntry(let path, let reason):
            "unsafe archive entry '\(path)': \(reason); the archive was rejected before anything was installed — ask the publisher to repack it"
        case .outsideLayout(let path):
            "archive entry '\(path)' is outside the hosted-content layout (only ContentInfo.plist and Contents/ are allowed); repack the content folder"
        case .sizeExceeded(let path, let declared, let written):
            "archive entry '\(path)' holds at least \(written) bytes but only \(declared) were declared or allowed; the archive is damaged or hostile — republish it"
        case .tooManyEntries(let declared, let found):
            "archive has at least \(found) entries but at most \(declared) are allowed; republish the catalog with the right entryCount"
        case .wrongContent(let expected, let found):
            "the archive's ContentInfo.plist does not match the catalog: expected \(expected), found \(found); republish the catalog or the archive"
        case .archiveMismatch(let path, let reason):
            "\(path): \(reason); download the archive again"
        case .refusedManifest(let path, let reason):
            "the manifest \(path) \(reason)"
        case .insufficientSpace(let needed, let available):
            "not enough free space to install: \(needed) bytes needed, \(available) available; free some space and retry"
        case .invalidProductID(let id):
            "product identifier '\(id)' cannot name a folder (empty, '/', '..', control characters or too long)"
        case .archive(let error):
            "cannot read archive: \(error.description)"
        case .system(let operation, let path, let errno):
            "\(operation) failed on \(path): \(String(cString: strerror(errno))) (errno \(errno)); \(Self.advice(errno: errno))"
        case .badChunk(let index, let reason):
            "chunk \(index): \(reason)"
        }
    }

    /// What to do about a failed system call, by its errno.
    static func advice(errno: Int32) -> String {
        switch errno {
        case EEXIST, ENOTDIR: "a file is in the way where a folder belongs; give the store a folder of its own, or move that file"
        case EACCES, EPERM: "this user may not write there; check the folder's owner and permissions, or choose another store"
        case ENOSPC, EDQUOT: "the file system is full; free some space and retry"
        case EROFS: "the file system is read-only; choose a store on a writable one"
        case ENOENT: "a folder on the way is missing; check the path"
        default: "check the path and its file system, then retry"
        }
    }
}
