import Foundation

/// A ``MetadataSigner`` holding its private key in memory, read from an `iapcontent keygen` key file.
package struct KeyFileSigner: MetadataSigner {
    private let signingKey: SigningKey
    package let key: MetadataKey

    /// Signs with `signingKey`.
    package init(_ signingKey: SigningKey) {
        self.signingKey = signingKey
        key = MetadataKey(ed25519PublicKey: Array(signingKey.publicKeyRaw))
    }

    /// Reads the key file at `path`.
    package init(path: String) throws(KeyFileError) {
        self.init(try KeyFile.read(from: URL(fileURLWithPath: path)))
    }

    package func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try signingKey.signature(for: Data(message)))
    }
}
