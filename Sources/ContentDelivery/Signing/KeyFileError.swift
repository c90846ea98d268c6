public import SystemSupport
/// Why a key file (signing key or URL-token key) could not be written or used.
public enum KeyFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Refused to overwrite an existing key.
    case alreadyExists(path: String)
    /// The file is readable or writable by group or others.
    case tooOpen(path: String, mode: UInt32)
    /// The file does not hold a key of the expected kind.
    case malformed(path: String, detail: String)
    /// The file could not be read or written.
    case fileSystem(FileSystemError)

    /// A message naming the file and what to do.
    public var description: String {
        switch self {
        case .alreadyExists(let path):
            return "\(path) already exists; refusing to overwrite a key — choose another --output or delete it first"
        case .tooOpen(let path, let mode):
            return "\(path) has mode \(String(mode, radix: 8)); a secret key must be private — run `chmod 600 \(path)`"
        case .malformed(let path, let detail):
            return "\(path) is not a valid key file: \(detail)"
        case .fileSystem(let error):
            return error.description
        }
    }
}
