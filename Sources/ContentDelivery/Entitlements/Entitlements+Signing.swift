internal import SystemSupport
public import Foundation

extension Entitlements {
    /// Writes the document to `url` and its detached signature to `<url>.sig`, each durably
    /// (temp + fsync + rename), the way `catalog --signing-key` writes `catalog.json` and its `.sig`.
    ///
    /// The signature covers the exact bytes written, so the pair verifies with
    /// ``EntitlementsVerifier`` and the key's public half.
    /// - Returns: The signature record.
    /// - Throws: an encoding or `FileSystemError`.
    @discardableResult
    public func write(to url: URL, signingKey: SigningKey) throws -> CatalogSignature {
        let data = try encoded()
        let signature = try CatalogSigner(key: signingKey).sign(data)
        try DurableFile.write(data, to: url)
        try DurableFile.write(try signature.encoded(), to: Self.signatureURL(for: url))
        return signature
    }

    /// `<document>.sig` beside a document file.
    public static func signatureURL(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".sig")
    }
}
