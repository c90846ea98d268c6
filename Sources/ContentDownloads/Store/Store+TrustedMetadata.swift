internal import Crypto
package import Foundation
import Glibc

extension Store {
    /// `trust/<first 32 hex digits of SHA-256(repository URL)>/`: the metadata this store trusts for one TUF
    /// repository (written by `RepositoryClient`'s updates).
    package func trustedMetadataFolder(repository: URL) -> URL {
        let digest = SHA256.hash(data: Array(repository.absoluteString.utf8)).map { String(format: "%02x", $0) }.joined()
        return root.appendingPathComponent("trust", isDirectory: true).appendingPathComponent(String(digest.prefix(32)), isDirectory: true)
    }

    /// Deletes `<folder>/<name>.json` of a repository's trusted metadata: a file a key rotation made untrusted.
    package func discardTrustedMetadata(_ name: String, in folder: URL) {
        unlink(folder.appendingPathComponent("\(name).json").path)
    }
}
