internal import ContentDelivery
internal import Crypto
internal import Foundation
internal import SystemSupport

/// A catalog folder as `iapcontent catalog` wrote it, checked before anything is sent: `catalog.json`, its
/// signature, and every archive, manifest and patch the catalog names, present locally with the length it states.
struct PublishSource {
    /// The bytes of `catalog.json`, sent unchanged (the signature covers them exactly).
    let catalogData: Data
    /// Lowercase hex SHA-256 of ``catalogData``: the name of its signature and history copies.
    let catalogSHA256: String
    /// The decoded catalog.
    let catalog: Catalog
    /// The bytes of `catalog.json.sig`.
    let signatureData: Data
    /// Every content-addressed object the catalog names: manifests first, then patches, then archives.
    let objects: [PublishedObject]

    /// Reads and checks `folder`.
    /// - Throws: ``PublishError`` naming the file and what to do.
    init(folder: URL) throws(PublishError) {
        let catalogFile = folder.appendingPathComponent(Catalog.fileName)
        let signatureFile = folder.appendingPathComponent(Catalog.signatureFileName)
        guard let data = try? Data(contentsOf: catalogFile) else {
            throw PublishError("cannot read \(catalogFile.path); give the folder `iapcontent catalog --output` wrote")
        }
        guard let signature = try? Data(contentsOf: signatureFile) else {
            throw PublishError("\(signatureFile.path) is missing: publish only signed catalogs (iapcontent catalog … --signing-key <file>)")
        }
        do {
            catalog = try Catalog.decoder.decode(Catalog.self, from: data)
            _ = try JSONDecoder().decode(CatalogSignature.self, from: signature)
        } catch {
            throw PublishError("\(catalogFile.path) or its signature is not valid: \(error); rebuild it with `iapcontent catalog`")
        }
        catalogData = data
        signatureData = signature
        catalogSHA256 = SHA256.hash(data: data).lowercaseHex
        var manifests: [PublishedObject] = []
        var archives: [PublishedObject] = []
        var seen = Set<String>()
        for product in catalog.products {
            if let manifest = product.manifest, seen.insert(manifest.path).inserted {
                manifests.append(try PublishedObject(
                    name: manifest.path, folder: folder, length: manifest.length, sha256: manifest.sha256, kind: .manifest))
            }
            if seen.insert(product.path).inserted {
                archives.append(try PublishedObject(
                    name: product.path, folder: folder, length: product.length, sha256: product.sha256, kind: .archive))
            }
        }
        var patches: [PublishedObject] = []
        for product in catalog.products {
            for patch in product.patches ?? [] where seen.insert(patch.path).inserted {
                patches.append(try PublishedObject(name: patch.path, folder: folder, length: patch.length, sha256: patch.sha256, kind: .patch))
            }
        }
        objects = manifests + patches + archives
    }
}

/// One content-addressed object a catalog names (`archives/<sha256>.tar.zst`, `manifests/<sha256>.manifest`): its
/// key under the prefix, the local file and what the catalog says of it.
struct PublishedObject {
    /// What the object holds.
    enum Kind { case archive, manifest, patch }

    /// The path relative to the catalog folder, which is also its key under the prefix.
    let name: String
    /// The local file.
    let file: URL
    /// Its length, as the catalog states it.
    let length: Int64
    /// Its SHA-256, as the catalog states it.
    let sha256: String
    /// What it holds.
    let kind: Kind

    /// The object `name` of `folder`; refused when the name could leave the prefix or the file is missing or of
    /// another length than the catalog states.
    init(name: String, folder: URL, length: Int64, sha256: String, kind: Kind) throws(PublishError) {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), segments.count >= 2, !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              name.contains(sha256)
        else {
            throw PublishError("the catalog names \(name), which is not a content-addressed path inside the catalog folder (archives/<sha256>…); rebuild it with `iapcontent catalog`")
        }
        self.name = name
        self.length = length
        self.sha256 = sha256
        self.kind = kind
        file = folder.appendingPathComponent(name)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int64
        guard let size else {
            throw PublishError("\(file.path) is missing but the catalog names it; rebuild the folder with `iapcontent catalog`")
        }
        guard size == length else {
            throw PublishError("\(file.path) is \(size) bytes but the catalog says \(length); rebuild the folder with `iapcontent catalog`")
        }
    }

    /// Hashes the local file and compares with the catalog's SHA-256, so damaged bytes never land under a name
    /// that can never be rewritten.
    func verifyLocalBytes() throws(PublishError) {
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw PublishError("cannot read \(file.path); check permissions")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 4 << 20) } catch {
                throw PublishError("cannot read \(file.path): \(error); check the disk")
            }
            guard let chunk, !chunk.isEmpty else { break }
            hasher.update(data: chunk)
        }
        guard hasher.finalizeHex() == sha256 else {
            throw PublishError("\(file.path) does not hash to the SHA-256 the catalog states (\(sha256)); it was changed after `iapcontent catalog`: rebuild the folder")
        }
    }

    /// The headers it is stored with: immutable (its name never gets other bytes), binary.
    var headers: [String] {
        ["Cache-Control: public, max-age=31536000, immutable", "Content-Type: application/octet-stream"]
    }
}
