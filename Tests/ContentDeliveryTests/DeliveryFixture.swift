import ContentDelivery
import ContentPackaging
import Crypto
import Foundation

/// A temp folder with hand-made archives + manifests (any bytes will do: the catalog builder only
/// hashes archives, it never unpacks them). Deleted by ``remove()``.
struct DeliveryFixture {
    let root: URL
    let input: URL
    let output: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-delivery-\(UUID().uuidString)")
        input = root.appendingPathComponent("in")
        output = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes `<id>-<ver>.tar.zst` with `bytes` and a truthful manifest (unless overridden).
    @discardableResult
    func addArchive(
        _ productID: String, _ version: String, bytes: Data? = nil, manifestSHA: String? = nil,
        manifestSize: Int64? = nil, entryCount: Int = 3, uncompressedSize: Int64 = 4096
    ) throws -> (archive: URL, bytes: Data) {
        let content = bytes ?? Data("archive of \(productID) \(version) \(UUID().uuidString)".utf8)
        let contentVersion = ContentVersion(version)!
        let name = PackageNaming.archiveName(productID: productID, version: contentVersion)
        let archive = input.appendingPathComponent(name)
        try content.write(to: archive)
        let manifest = PackageManifest(
            productID: productID, contentVersion: contentVersion, archiveName: name,
            archiveSize: manifestSize ?? Int64(content.count),
            archiveSHA256: manifestSHA ?? Self.sha256(content), uncompressedSize: uncompressedSize,
            entryCount: entryCount, files: [])
        try manifest.encoded().write(
            to: input.appendingPathComponent(PackageNaming.manifestName(productID: productID, version: contentVersion)))
        return (archive, content)
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// A builder with a fixed clock and version so output is reproducible.
    func builder(
        output: URL? = nil, version: UInt64? = 7, baseURL: String? = nil, key: SigningKey? = nil,
        expiresIn: TimeInterval? = nil, now: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) -> CatalogBuilder {
        CatalogBuilder(
            inputDirectory: input, outputDirectory: output ?? self.output, baseURL: baseURL, catalogVersion: version,
            expiresIn: expiresIn, signingKey: key, now: now)
    }
}
