import SystemSupport
public import Foundation
import Glibc

/// The on-disk form of a catalog signing key: small JSON, mode 0600.
///
/// ```json
/// { "algorithm": "ed25519", "keyID": "3f2a…", "privateKey": "<base64 32 bytes>", "publicKey": "<base64>" }
/// ```
/// The public key and key ID are stored for convenience; on load they are recomputed from the
/// private key and must match.
public struct KeyFile: Codable, Sendable, Equatable {
    /// Always `ed25519`.
    public var algorithm: String
    /// First 16 hex of SHA-256 of the raw public key.
    public var keyID: String
    /// Raw 32-byte private key, base64.
    public var privateKey: String
    /// Raw 32-byte public key, base64 (what apps pin).
    public var publicKey: String

    /// The file contents for `key`.
    public init(key: SigningKey) {
        self.algorithm = "ed25519"
        self.keyID = key.keyID
        self.privateKey = key.rawRepresentation.base64EncodedString()
        self.publicKey = key.publicKeyBase64
    }

    /// Writes `key` to a new file with mode 0600; never overwrites.
    ///
    /// - Throws: ``KeyFileError/alreadyExists(path:)`` or a file-system error.
    public static func write(_ key: SigningKey, to url: URL) throws(KeyFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data: Data
        do { data = try encoder.encode(KeyFile(key: key)) } catch {
            throw .malformed(path: url.path, detail: "\(error)")
        }
        data.append(UInt8(ascii: "\n"))
        try SecretFile.create(data, at: url)
    }

    /// Reads a signing key, refusing group/other-accessible files.
    ///
    /// - Throws: ``KeyFileError`` naming the file.
    public static func read(from url: URL) throws(KeyFileError) -> SigningKey {
        let data = try SecretFile.read(url)
        let file: KeyFile
        do { file = try JSONDecoder().decode(KeyFile.self, from: data) } catch {
            throw .malformed(path: url.path, detail: "expected JSON with algorithm, keyID, privateKey, publicKey")
        }
        guard file.algorithm == "ed25519" else {
            throw .malformed(path: url.path, detail: "algorithm \(file.algorithm) is not ed25519")
        }
        guard let raw = Data(base64Encoded: file.privateKey), let key = try? SigningKey(rawRepresentation: raw) else {
            throw .malformed(path: url.path, detail: "privateKey is not a base64 32-byte Ed25519 key")
        }
        guard key.keyID == file.keyID, key.publicKeyBase64 == file.publicKey else {
            throw .malformed(path: url.path, detail: "keyID/publicKey do not match the private key; the file was edited")
        }
        return key
    }
}

/// Secret files: created exclusively with mode 0600, read only when not group/other accessible.
enum SecretFile {
    static func create(_ data: Data, at url: URL) throws(KeyFileError) {
        if FileManager.default.fileExists(atPath: url.path) { throw .alreadyExists(path: url.path) }
        do { try DurableFile.write(data, to: url, permissions: 0o600) } catch { throw .fileSystem(error) }
    }

    static func read(_ url: URL) throws(KeyFileError) -> Data {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: url.path) } catch {
            throw .fileSystem(FileSystemError(operation: "stat", path: url.path, foundationError: error))
        }
        let mode = ((attributes[.posixPermissions] as? NSNumber)?.uint32Value ?? 0o777) & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(path: url.path, mode: mode) }
        do { return try Data(contentsOf: url) } catch {
            throw .fileSystem(FileSystemError(operation: "read", path: url.path, foundationError: error))
        }
    }
}
