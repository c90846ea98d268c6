import Crypto
import SystemSupport
public import Foundation
import ContentPackaging
import Glibc

/// Builds a static, content-addressed catalog folder from packed archives (`iapcontent catalog`).
///
/// Input: a folder of `<id>-<ver>.tar.zst` archives, each with its `<id>-<ver>.manifest` (or `.manifest.json`).
/// Output:
/// ```
/// <out>/catalog.json               every product, sorted by productID
/// <out>/catalog.json.sig           detached Ed25519 signature (when a key is given)
/// <out>/archives/<sha256>.tar.zst  immutable, named by content
/// <out>/manifests/<sha256>.manifest  each chunk-indexed archive's manifest
/// <out>/patches/<sha256>.patch      precomputed patches to a current version (`<id>-<old>-to-<new>.patch` inputs)
/// ```
/// Every archive is stream-hashed and must match its manifest. When several versions of a product
/// are present, the highest wins (the others are reported in ``CatalogBuildResult/superseded``).
/// Archives are hard-linked into the output when on the same file system, otherwise copied; both
/// via a temp name + fsync + rename. Old archives are never deleted: clients holding the previous
/// catalog can still fetch them.
///
/// `catalogVersion` defaults to the previous catalog's version + 1 when `<out>/catalog.json` exists,
/// otherwise the current Unix time (so a publisher who lost the output folder still moves forward).
public struct CatalogBuilder: Sendable {
    /// The folder holding archives and manifests.
    public var inputDirectory: URL
    /// The catalog folder to write (created if missing).
    public var outputDirectory: URL
    /// When set, every product gets an absolute `url` = `<baseURL>/archives/<sha>.tar.zst`.
    public var baseURL: String?
    /// Mirror base URLs written to ``Catalog/baseURLs``.
    public var mirrors: [String]
    /// Explicit catalog version; must exceed the previous one.
    public var catalogVersion: UInt64?
    /// Seconds from `now` until the catalog expires; `nil` = never.
    public var expiresIn: TimeInterval?
    /// Key that signs `catalog.json`; `nil` = unsigned (any stale `.sig` is removed).
    public var signingKey: SigningKey?
    /// The issue time (injected for deterministic tests).
    public var now: Date

    /// Creates a builder; see the properties for each option.
    public init(
        inputDirectory: URL, outputDirectory: URL, baseURL: String? = nil, mirrors: [String] = [],
        catalogVersion: UInt64? = nil, expiresIn: TimeInterval? = nil, signingKey: SigningKey? = nil,
        now: Date = Date()
    ) {
        self.inputDirectory = inputDirectory
        self.outputDirectory = outputDirectory
        self.baseURL = baseURL
        self.mirrors = mirrors
        self.catalogVersion = catalogVersion
        self.expiresIn = expiresIn
        self.signingKey = signingKey
        self.now = now
    }

    /// Writes the catalog folder.
    ///
    /// - Returns: The catalog, its bytes, its signature and the superseded inputs.
    /// - Throws: ``CatalogBuildError`` naming the offending file; nothing is published then
    ///   (`catalog.json` is only replaced after every archive checked out).
    public func build() throws(CatalogBuildError) -> CatalogBuildResult {
        let inputs = try readInputs()
        let (kept, superseded) = try selectHighestVersions(inputs)
        let archives = outputDirectory.appendingPathComponent("archives", isDirectory: true)
        try createDirectory(archives)
        let manifests = outputDirectory.appendingPathComponent("manifests", isDirectory: true)
        let patches = outputDirectory.appendingPathComponent("patches", isDirectory: true)

        var products: [CatalogProduct] = []
        for input in kept {
            let digest = try publish(input, into: archives)
            let path = "archives/\(digest.sha256).tar.zst"
            var product = CatalogProduct(
                productID: input.manifest.productID, contentVersion: input.manifest.contentVersion,
                path: path, url: baseURL.map { Self.join($0, path) }, length: digest.length,
                sha256: digest.sha256, uncompressedSize: input.manifest.uncompressedSize,
                entryCount: input.manifest.entryCount)
            product.manifest = try publishManifest(input, into: manifests)
            product.patches = try publishPatches(to: input, manifest: product.manifest, into: patches)
            products.append(product)
        }
        products.sort { $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }

        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let catalog = Catalog(
            catalogVersion: try nextCatalogVersion(), issuedAt: issuedAt,
            expires: expiresIn.map { issuedAt.addingTimeInterval($0.rounded(.down)) },
            baseURLs: mirrors, products: products)
        return try write(catalog, superseded: superseded)
    }

    // MARK: Steps

    struct Input {
        var archive: URL
        var manifest: PackageManifest
        /// The manifest's bytes as packed (published as they are, so their SHA-256 is the packer's).
        var manifestData: Data
        var manifestURL: URL
    }

    func readInputs() throws(CatalogBuildError) -> [Input] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: inputDirectory.path) } catch {
            throw .fileSystem(FileSystemError(operation: "list", path: inputDirectory.path, foundationError: error))
        }
        var inputs: [Input] = []
        for name in names.sorted() where name.hasSuffix(".tar.zst") && !name.hasPrefix(".") {
            let archive = inputDirectory.appendingPathComponent(name)
            let manifestURL = PackageNaming.manifestURL(besideArchive: archive)
            guard FileManager.default.fileExists(atPath: manifestURL.path) else {
                throw .missingManifest(archive: archive.path, expected: manifestURL.path)
            }
            let manifest: PackageManifest
            let manifestData: Data
            do {
                manifestData = try Data(contentsOf: manifestURL)
                manifest = try PackageManifest.decode(manifestData)
            } catch let error as DecodingError {
                throw .unreadableManifest(path: manifestURL.path, detail: error.humanDescription)
            } catch {
                throw .unreadableManifest(path: manifestURL.path, detail: "\(error)")
            }
            inputs.append(Input(archive: archive, manifest: manifest, manifestData: manifestData, manifestURL: manifestURL))
        }
        guard !inputs.isEmpty else { throw .noArchives(directory: inputDirectory.path) }
        return inputs
    }

    func selectHighestVersions(_ inputs: [Input]) throws(CatalogBuildError)
        -> ([Input], [CatalogBuildResult.Superseded])
    {
        let byProduct = Dictionary(grouping: inputs, by: \.manifest.productID)
        var kept: [Input] = []
        var superseded: [CatalogBuildResult.Superseded] = []
        for productID in byProduct.keys.sorted() {
            let versions = byProduct[productID]!.sorted { $0.manifest.contentVersion > $1.manifest.contentVersion }
            let best = versions[0]
            let ties = versions.filter { $0.manifest.contentVersion == best.manifest.contentVersion }
            guard ties.count == 1 else {
                throw .duplicateVersion(
                    productID: productID, version: best.manifest.contentVersion,
                    archives: ties.map(\.archive.lastPathComponent))
            }
            kept.append(best)
            for older in versions.dropFirst() {
                superseded.append(
                    .init(
                        productID: productID, skipped: older.manifest.contentVersion,
                        kept: best.manifest.contentVersion, archive: older.archive.lastPathComponent))
            }
        }
        return (kept, superseded)
    }

    /// Links or copies one archive to `archives/<sha>.tar.zst`, checking it against its manifest.
    func publish(_ input: Input, into archives: URL) throws(CatalogBuildError) -> FileDigest {
        let temp = archives.appendingPathComponent(".tmp-\(UUID().uuidString).tar.zst")
        let digest: FileDigest
        do {
            if link(input.archive.path, temp.path) == 0 {
                // Same inode: hashing the link hashes exactly what will be served.
                digest = try FileDigest.of(temp)
            } else {
                digest = try copy(input.archive, to: temp)
            }
        } catch {
            unlink(temp.path)
            throw .fileSystem(error)
        }
        let manifest = input.manifest
        if digest.length != manifest.archiveSize {
            unlink(temp.path)
            throw .manifestMismatch(
                archive: input.archive.path, field: "length", manifest: "\(manifest.archiveSize)",
                actual: "\(digest.length)")
        }
        // Schema-2 manifests carry no archive SHA-256; the catalog's comes from the hash just taken.
        if let expected = manifest.archiveSHA256, digest.sha256 != expected.lowercased() {
            unlink(temp.path)
            throw .manifestMismatch(
                archive: input.archive.path, field: "sha256", manifest: expected, actual: digest.sha256)
        }
        let destination = archives.appendingPathComponent("\(digest.sha256).tar.zst")
        if FileManager.default.fileExists(atPath: destination.path), (try? FileDigest.of(destination)) == digest {
            // Content-addressed and immutable: already published (possibly the very same inode,
            // where rename(2) would silently do nothing and leave the temp link behind). A damaged
            // copy fails the digest check and is replaced below.
            unlink(temp.path)
            return digest
        }
        do { try DurableFile.commit(temp, to: destination) } catch {
            throw .fileSystem(error)
        }
        return digest
    }

    func copy(_ source: URL, to temp: URL) throws(FileSystemError) -> FileDigest {
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: temp.path, errno: errno) }
        defer { close(fd) }
        let digest = try FileDigest.stream(from: source, copyingTo: fd, destinationPath: temp.path)
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: temp.path, errno: errno) }
        return digest
    }

    func nextCatalogVersion() throws(CatalogBuildError) -> UInt64 {
        let previousURL = outputDirectory.appendingPathComponent(Catalog.fileName)
        var previous: UInt64?
        if let data = FileManager.default.contents(atPath: previousURL.path) {
            do { previous = try Catalog.load(from: data).catalogVersion } catch {
                if catalogVersion == nil {
                    throw .unreadablePreviousCatalog(path: previousURL.path, detail: error.description)
                }
            }
        }
        if let requested = catalogVersion {
            if let previous, requested <= previous {
                throw .catalogVersionNotIncreasing(requested: requested, previous: previous)
            }
            return requested
        }
        if let previous { return previous + 1 }
        return UInt64(max(1, now.timeIntervalSince1970.rounded(.down)))
    }

    func write(_ catalog: Catalog, superseded: [CatalogBuildResult.Superseded]) throws(CatalogBuildError)
        -> CatalogBuildResult
    {
        let catalogURL = outputDirectory.appendingPathComponent(Catalog.fileName)
        let signatureURL = outputDirectory.appendingPathComponent(Catalog.signatureFileName)
        let data: Data
        var signature: CatalogSignature?
        var signatureData: Data?
        do {
            data = try catalog.encoded()
            if let signingKey {
                signature = try CatalogSigner(key: signingKey).sign(data)
                signatureData = try signature?.encoded()
            }
        } catch {
            throw .encoding("\(error)")
        }
        // The signature by the catalog's hash first: a client reading the folder while it changes finds the
        // signature of whichever catalog.json it fetched (see `Catalog.signaturePath(catalogSHA256:)`).
        let byHash = outputDirectory.appendingPathComponent(
            Catalog.signaturePath(catalogSHA256: SHA256.hash(data: data).lowercaseHex))
        if signatureData != nil { try createDirectory(byHash.deletingLastPathComponent()) }
        do {
            if let signatureData { try DurableFile.write(signatureData, to: byHash) }
            try DurableFile.write(data, to: catalogURL)
            if let signatureData {
                try DurableFile.write(signatureData, to: signatureURL)
            } else if FileManager.default.fileExists(atPath: signatureURL.path) {
                // A stale signature would not match the new bytes.
                unlink(signatureURL.path)
                try DurableFile.syncDirectory(outputDirectory)
            }
        } catch {
            throw .fileSystem(error)
        }
        return CatalogBuildResult(
            catalog: catalog, catalogData: data, signature: signature, superseded: superseded,
            catalogURL: catalogURL)
    }

    func createDirectory(_ url: URL) throws(CatalogBuildError) {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw .fileSystem(FileSystemError(operation: "mkdir", path: url.path, foundationError: error))
        }
    }

    static func join(_ base: String, _ path: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/" + path
    }
}
