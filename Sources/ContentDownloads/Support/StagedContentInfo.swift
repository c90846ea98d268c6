import ContentDelivery
import ContentPackaging
import Foundation
import Glibc

/// Checks the extracted `ContentInfo.plist` says what the catalog promised (product id and version).
///
/// Parsed with ContentPackaging's ``ContentInfo`` (the same rules `pack` applied); read through the
/// staging directory's descriptor without following links.
enum StagedContentInfo {
    /// Largest plist accepted (it is two keys; anything bigger is not ours).
    static let maxBytes = ContentInfo.maxFileBytes

    static func verify(stagingFD: Int32, stagingPath: String, product: CatalogProduct) throws(InstallError) {
        let expected = "IAPProductIdentifier '\(product.productID)', ContentVersion '\(product.contentVersion)'"
        guard let data = read(in: stagingFD, ContentInfo.fileName) else {
            throw .wrongContent(expected: expected, found: "no readable ContentInfo.plist in \(stagingPath)")
        }
        let info: ContentInfo
        do { info = try ContentInfo(data: data) } catch {
            throw .wrongContent(expected: expected, found: "an invalid ContentInfo.plist (\(error))")
        }
        guard info.productID == product.productID, info.contentVersion == product.contentVersion else {
            throw .wrongContent(expected: expected, found: "IAPProductIdentifier '\(info.productID)', ContentVersion '\(info.contentVersion)'")
        }
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
