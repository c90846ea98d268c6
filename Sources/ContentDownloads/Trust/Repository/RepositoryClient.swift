internal import ContentDelivery
public import Foundation
internal import Glibc

/// A store's client of one TUF repository (written by `iapcontent repo`, or any TUF 1.0 repository whose archive
/// targets carry our catalog entries): the app ships the repository's `root.json` once, and every later key change
/// reaches it through the root chain.
///
/// Each call runs the TUF client workflow: the root chain, the timestamp (a conditional request: a 304 when nothing
/// was published), the version of each targets file it needs from the snapshot tree the timestamp signs, the
/// top-level targets, and only the bins holding the wanted products. The metadata this store trusts is kept in
/// `<store>/trust/` and replaced only when a whole run passed, so a refused update (each refusal with its own
/// ``DownloadError/Code``: `.rollback`, `.metadataExpired`, `.mixAndMatch`, `.thresholdNotMet`, `.fastForward`,
/// `.metadataTooLarge`, `.badMetadata`) changes nothing and installs nothing.
public struct RepositoryClient: Sendable {
    /// The repository's folder URL (holding `metadata/` and `targets/`), ending in `/`.
    public let repositoryURL: URL
    /// The store whose trusted metadata this client reads and updates.
    public let store: Store
    /// The connection settings, the same the archives use.
    public let transport: TransferSettings
    /// The root the app ships (any version of the repository's root; the chain carries it forward).
    let shippedRoot: Data

    /// A client of the repository at `repository` (an http(s) or file URL, or a path) for `store`, trusting
    /// `trustedRoot` (the bytes of a `root.json` of that repository).
    public init(repository: String, trustedRoot: Data, store: Store, transport: TransferSettings = TransferSettings()) {
        var url = CatalogSource.resolve(repository)
        if !url.absoluteString.hasSuffix("/") { url = URL(string: url.absoluteString + "/") ?? url }
        repositoryURL = url
        shippedRoot = trustedRoot
        self.store = store
        self.transport = transport
    }

    /// The same, reading the trusted root from the file at `trustedRootFile`.
    /// - Throws: ``DownloadError`` with code `.catalog` when the file cannot be read, is not a regular file (a FIFO,
    ///   a folder) or is larger than a root a client reads (512 KiB).
    public init(repository: String, trustedRootFile: String, store: Store, transport: TransferSettings = TransferSettings()) throws(DownloadError) {
        let bytes: Data
        do throws(DownloadError) {
            guard let read = try CatalogSource.read(
                URL(fileURLWithPath: trustedRootFile), transport: transport, what: "trusted root", allowMissing: true,
                limit: RepositoryUpdate.rootLimit, limitName: "the largest root a client reads")
            else { throw DownloadError(code: .catalog, message: "no such file") }
            bytes = read
        } catch {
            throw DownloadError(
                code: .catalog,
                message: "cannot use \(trustedRootFile) as the trusted root (\(error.message)); pass the root.json the repository's publisher ships (`iapcontent repo init` wrote 1.root.json)")
        }
        self.init(repository: repository, trustedRoot: bytes, store: store, transport: transport)
    }

    /// The products `productIDs`, each verified through the root → timestamp → snapshot tree → targets → bin chain,
    /// as a catalog source the queue downloads from: archive and manifest URLs are the repository's hash-named
    /// targets, their lengths and SHA-256 the ones the bin signs.
    ///
    /// Blocks the calling thread while it fetches.
    /// `ifPresent`: more products, left out of the source when the repository's bins say they are not there (a
    /// restore asks for every product the customer is entitled to, some of which a publisher may have withdrawn).
    ///
    /// Blocks the calling thread while it fetches.
    /// - Throws: ``DownloadError`` with the refusal's own code, or `.catalog` when a product of `productIDs` is not in
    ///   the repository.
    public func catalogSource(for productIDs: [String], ifPresent: [String] = [], now: Date = Date()) throws(DownloadError) -> CatalogSource {
        try check(productIDs: productIDs, ifPresent: ifPresent, now: now).source
    }

    /// Runs one update and reports it: the products (as `catalogSource(for:ifPresent:now:)` returns them), whether
    /// the timestamp changed since the last update, and what the update cost.
    public func check(productIDs: [String], ifPresent: [String] = [], now: Date = Date()) throws(DownloadError) -> RepositoryCheck {
        let folder = store.trustedMetadataFolder(repository: repositoryURL)
        let lock = try TrustedFolderLock(folder: folder)
        defer { lock.unlock() }
        let fetch = RepositoryFetch(base: repositoryURL, transport: transport)
        let trusted = try TrustedMetadata(
            folder: folder, shippedRoot: shippedRoot, repository: repositoryURL.absoluteString, timer: fetch.signatures)
        var update = RepositoryUpdate(trusted: trusted, fetch: fetch, now: now)
        try update.updateRoot()
        try update.updateTimestamp()
        var products: [CatalogProduct] = []
        for productID in productIDs {
            guard let product = try product(productID, update: &update) else {
                let path = try update.targetPaths(of: productID).archive
                throw DownloadError(code: .catalog, message: "product \(productID) is not in the repository \(repositoryURL.absoluteString) (no target \(path))")
            }
            products.append(product)
        }
        let asked = Set(productIDs)
        for productID in Set(ifPresent).subtracting(asked).sorted() {
            if let product = try product(productID, update: &update) { products.append(product) }
        }
        try update.trusted.save(changed: update.changed, dropped: update.dropped, store: store)
        let timestamp = update.trusted.timestamp!.signed
        let catalog = Catalog(
            catalogVersion: UInt64(timestamp.version), expires: timestamp.header.expires, products: products)
        return RepositoryCheck(
            source: CatalogSource(catalog: catalog, location: repositoryURL.appendingPathComponent("targets", isDirectory: true)),
            rootVersion: update.trusted.root.signed.version, timestampVersion: timestamp.version,
            timestampChanged: update.timestampChanged, requests: fetch.requests, bytesReceived: fetch.bytesReceived,
            signatureChecks: fetch.signatures.checks, signatureCPUSeconds: fetch.signatures.seconds)
    }

    /// The catalog entry the archive target of `productID` carries, its archive and manifest named by their
    /// target files and checked against the hashes the bins sign; `nil` when the bin that would list it does not.
    private func product(_ productID: String, update: inout RepositoryUpdate) throws(DownloadError) -> CatalogProduct? {
        let repository = repositoryURL.absoluteString
        let archivePath = try update.targetPaths(of: productID).archive
        guard let archive = try update.target(archivePath) else { return nil }
        guard var product = ProductTargets.product(in: archive) else {
            throw .repository(.badMetadata, file: "target \(archivePath)", repository: repository, "its custom field holds no iapcontent catalog entry")
        }
        guard product.productID == productID, product.sha256 == archive.sha256, product.length == archive.length else {
            throw .repository(
                .badMetadata, file: "target \(archivePath)", repository: repository,
                "its catalog entry names \(product.productID), \(product.length) bytes, SHA-256 \(product.sha256); the target is \(archive.length) bytes, \(archive.sha256)")
        }
        product.path = targetFile(archivePath, sha256: archive.sha256)
        // Patches (their paths relative to targets/) stay: the entry the bin signs holds their length and SHA-256.
        if let reference = product.manifest {
            guard let manifest = try update.target(reference.path) else {
                throw .repository(.badMetadata, file: "target \(archivePath)", repository: repository, "it names manifest \(reference.path), which no bin lists")
            }
            guard manifest.sha256 == reference.sha256, manifest.length == reference.length else {
                throw .repository(
                    .badMetadata, file: "target \(reference.path)", repository: repository,
                    "the manifest target is \(manifest.length) bytes, \(manifest.sha256); the catalog entry says \(reference.length), \(reference.sha256)")
            }
            product.manifest?.path = targetFile(reference.path, sha256: manifest.sha256)
        }
        return product
    }

    /// Where target `path` is stored under `targets/`: `<dir>/<sha256>.<name>` with consistent snapshots, else `path`.
    private func targetFile(_ path: String, sha256: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "\(sha256).\(path)" }
        return "\(path[..<slash])/\(sha256).\(path[path.index(after: slash)...])"
    }
}

/// What one update of a repository found and cost.
public struct RepositoryCheck: Sendable {
    /// The products asked for, as a catalog source.
    public var source: CatalogSource
    /// The trusted root's version after the update.
    public var rootVersion: Int64
    /// The trusted timestamp's version after the update.
    public var timestampVersion: Int64
    /// Whether the timestamp is newer than the one trusted before (something was published).
    public var timestampChanged: Bool
    /// HTTP requests made (or files read, for a local repository).
    public var requests: Int
    /// Bytes received: response headers and bodies.
    public var bytesReceived: Int
    /// Documents whose signatures were checked: the trusted ones read from the store, and each one fetched.
    public var signatureChecks: Int
    /// CPU seconds those checks took.
    public var signatureCPUSeconds: Double
}

/// An exclusive `flock` on `<trusted folder>/.lock`: one update of a repository's trusted metadata at a time, so
/// two processes never interleave their files (the kernel drops it if the process dies).
final class TrustedFolderLock {
    private var fd: Int32

    init(folder: URL) throws(DownloadError) {
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw DownloadError(code: .io, message: "cannot create \(folder.path): \(error); check permissions")
        }
        let path = folder.appendingPathComponent(".lock").path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw DownloadError(code: .io, message: "cannot open \(path): \(String(cString: strerror(errno))); check permissions") }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(fd)
                throw DownloadError(code: .io, message: "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    func unlock() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { unlock() }
}
