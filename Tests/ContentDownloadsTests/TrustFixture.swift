import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A catalog folder served by a real nginx: `catalog.json` (+ `catalog.json.sig`) and `archives/`.
final class TrustSite: @unchecked Sendable {
    let nginx: Nginx
    let key = SigningKey.generate()

    init() throws { nginx = try Nginx() }

    deinit { stop() }

    func stop() {
        nginx.stop()
        try? FileManager.default.removeItem(at: nginx.directory)
    }

    var catalogURL: String { nginx.baseURL + "/" + Catalog.fileName }
    var catalogFile: URL { nginx.root.appendingPathComponent(Catalog.fileName) }
    var signatureFile: URL { nginx.root.appendingPathComponent(Catalog.signatureFileName) }

    /// Writes `bytes` as `archives/<sha256>.bin` and returns its catalog entry.
    func addArchive(_ productID: String, version: String = "1.0", bytes: [UInt8]) throws -> CatalogProduct {
        let sha = sha256Hex(bytes)
        let path = "archives/\(sha).bin"
        let file = nginx.root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return CatalogProduct(
            productID: productID, contentVersion: ContentVersion(version)!, path: path, length: Int64(bytes.count),
            sha256: sha, uncompressedSize: Int64(bytes.count), entryCount: 1)
    }

    /// Publishes a catalog, signed by `signer` (nil: no `.sig` file at all).
    @discardableResult
    func publish(
        version: UInt64, products: [CatalogProduct], baseURLs: [String] = [], expires: Date? = Date().addingTimeInterval(3600),
        signer: SigningKey?
    ) throws -> Data {
        let catalog = Catalog(catalogVersion: version, issuedAt: Date(), expires: expires, baseURLs: baseURLs, products: products)
        let data = try catalog.encoded()
        try data.write(to: catalogFile)
        if let signer {
            try CatalogSigner(key: signer).sign(data).encoded().write(to: signatureFile)
        } else {
            try? FileManager.default.removeItem(at: signatureFile)
        }
        return data
    }

    /// Requests nginx logged for `path` (e.g. `/archives/...`).
    func requests(for path: String) -> [Nginx.LoggedRequest] {
        nginx.requests().filter { $0.request.contains(" \(path) ") || $0.request.contains(" \(path)?") }
    }
}

/// Expects `body` to throw a ``DownloadError`` with `code`; returns it.
@discardableResult
func expectDownloadError(
    _ code: DownloadError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> DownloadError? {
    do {
        try body()
    } catch let error as DownloadError {
        if error.code != code { Issue.record(Comment(rawValue: "expected \(code.rawValue), got \(error.code.rawValue): \(error.message)"), sourceLocation: sourceLocation) }
        return error
    } catch {
        Issue.record(Comment(rawValue: "expected DownloadError \(code.rawValue), got \(error)"), sourceLocation: sourceLocation)
        return nil
    }
    Issue.record(Comment(rawValue: "expected DownloadError \(code.rawValue), nothing was thrown"), sourceLocation: sourceLocation)
    return nil
}

/// Makes `productID` look installed at `version` in the store (a `ContentInfo.plist` is all that is read).
func markInstalled(_ layout: Store, productID: String, version: String) throws {
    let folder = layout.contentDirectory.appendingPathComponent(productID, isDirectory: true)
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("Contents"), withIntermediateDirectories: true)
    let plist: [String: Any] = ["IAPProductIdentifier": productID, "ContentVersion": version]
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    try data.write(to: folder.appendingPathComponent("ContentInfo.plist"))
}
