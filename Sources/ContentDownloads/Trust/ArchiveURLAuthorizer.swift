public import ContentDelivery
public import Foundation

/// Turns an archive URL into one the server accepts right now (for example by adding a fresh
/// purchaser token), just before each request.
///
/// The manager calls it before every request it sends for `productID`, with the catalog's URL (never
/// a previously authorized one, so expired tokens are not reused). After an HTTP 403 or 410 it asks
/// once more and retries; a second refusal fails the download with `.unauthorized`. Throwing fails the
/// download with `.unauthorized` and the error's text.
public typealias ArchiveURLAuthorizer = @Sendable (_ productID: String, _ url: URL) async throws -> URL

extension URLTokenSigner {
    /// An authorizer that mints tokens locally (development: `download --token-key`); a real app asks
    /// its backend, which checks the purchase first.
    /// - Parameter expiresIn: Seconds each minted URL stays valid.
    public func authorizer(expiresIn: TimeInterval = 300) -> ArchiveURLAuthorizer {
        let signer = self
        return { productID, url in signer.sign(url: url, product: productID, expiresIn: expiresIn) }
    }
}
