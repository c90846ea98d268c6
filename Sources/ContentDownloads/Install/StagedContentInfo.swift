import ContentDelivery
import ContentPackaging
import Foundation
import Glibc

/// Checks the extracted `ContentInfo.plist` says what the catalog promised (product id and version).
///
/// A minimal `PropertyListSerialization` reader of the two required keys, `IAPProductIdentifier`
/// and `ContentVersion`; read through the staging directory's descriptor without following links.
enum StagedContentInfo {
    /// Largest plist accepted (it is two keys; anything bigger is not ours).
    static let maxBytes = 1 << 20

    static func verify(stagingFD: Int32, stagingPath: String, product: CatalogProduct) throws(InstallError) {
        let expected = "IAPProductIdentifier '\(product.productID)', ContentVersion '\(product.contentVersion)'"
        guard let data = read(in: stagingFD, "ContentInfo.plist") else {
            throw .wrongContent(expected: expected, found: "no readable ContentInfo.plist in \(stagingPath)")
        }
        guard let (productID, version) = parse(data) else {
            throw .wrongContent(expected: expected, found: "a ContentInfo.plist without IAPProductIdentifier and ContentVersion strings")
        }
        guard productID == product.productID, let parsed = ContentVersion(version), parsed == product.contentVersion else {
            throw .wrongContent(expected: expected, found: "IAPProductIdentifier '\(productID)', ContentVersion '\(version)'")
        }
    }

    /// The product id and version strings of a `ContentInfo.plist`, or `nil`.
    static func parse(_ data: Data) -> (productID: String, version: String)? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let productID = plist["IAPProductIdentifier"] as? String,
              let version = plist["ContentVersion"] as? String
        else { return nil }
        return (productID, version)
    }

    /// Reads `name` in `directory` (no symlink following, at most ``maxBytes``).
    static func read(in directory: Int32, _ name: String) -> Data? {
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while data.count <= maxBytes {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return count == 0 ? data : nil }
            data.append(contentsOf: buffer[0..<count])
        }
        return nil
    }
}
