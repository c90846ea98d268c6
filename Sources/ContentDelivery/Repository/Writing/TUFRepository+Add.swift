package import Foundation

extension TUFRepository {
    /// What `add` changed.
    package struct AddResult: Sendable {
        /// The products whose targets were new or changed.
        package var changedProducts: [String]
        /// The metadata files written, in order (empty when nothing changed).
        package var written: [URL]
    }

    /// Publishes the products in `folder`: a catalog folder (`catalog.json` inside) as ``add(catalogDirectory:signers:)``
    /// does; a folder of packed archives and manifests (what `iapcontent pack` wrote) through a catalog built from it
    /// first, in a temporary folder inside the repository (so its archives are hard links, not copies) removed after.
    @discardableResult
    package func add(from folder: URL, signers: [any MetadataSigner]) throws(RepositoryError) -> AddResult {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(Catalog.fileName).path) {
            return try add(catalogDirectory: folder, signers: signers)
        }
        try RepositoryFiles.makeDirectory(layout.root)
        let staging = layout.root.appendingPathComponent(".incoming-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        do { _ = try CatalogBuilder(inputDirectory: folder, outputDirectory: staging, now: now).build() } catch {
            throw .unreadableCatalog(path: folder.path, detail: error.description)
        }
        return try add(catalogDirectory: staging, signers: signers)
    }

    /// Publishes every product of the catalog folder `catalogDirectory` (written by `iapcontent catalog`): its
    /// archive and manifest become targets, stored by hash; only the bins holding a new or changed target are
    /// rewritten, then the snapshot and the timestamp. A catalog whose products are all published already
    /// changes nothing.
    @discardableResult
    package func add(catalogDirectory: URL, signers: [any MetadataSigner]) throws(RepositoryError) -> AddResult {
        let catalogURL = catalogDirectory.appendingPathComponent(Catalog.fileName)
        let catalog: Catalog
        do { catalog = try Catalog.load(from: RepositoryFiles.read(catalogURL)) } catch let error as RepositoryError {
            throw .unreadableCatalog(path: catalogDirectory.path, detail: error.description)
        } catch {
            throw .unreadableCatalog(path: catalogDirectory.path, detail: "\(error)")
        }
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        var state = try RepositoryState(layout: layout)
        let bins = state.bins

        // Which bins the products' targets fall in (paths only: the targets themselves are made one bin at a time,
        // so memory holds the catalog and one bin, not every target and every changed bin at once).
        var byBin: [String: [(product: Int, manifest: Bool)]] = [:]
        for (index, product) in catalog.products.enumerated() {
            byBin[bins.binName(for: ProductTargets.archivePath(of: product.productID)), default: []].append((index, false))
            if let (path, _) = ProductTargets.manifest(of: product) {
                byBin[bins.binName(for: path), default: []].append((index, true))
            }
            for patch in product.patches ?? [] {
                // Not a target (the archive target's entry signs it): stored beside the product's targets by hash.
                try RepositoryFiles.placeTarget(
                    catalogDirectory.appendingPathComponent(patch.path),
                    at: layout.targets.appendingPathComponent(ProductTargets.patchFile(productID: product.productID, sha256: patch.sha256)),
                    length: patch.length, sha256: patch.sha256, durable: false)
            }
        }

        var writtenBins: [String: Int64] = [:]
        var written: [URL] = []
        var changedProducts: Set<String> = []
        var binSigners: [any MetadataSigner]?  // asked for at the first changed bin: adding nothing new needs no key
        for name in byBin.keys.sorted() {
            var bin = try state.bin(name).signed
            var changed = false
            for (index, isManifest) in byBin[name]! {
                let product = catalog.products[index]
                let path: String, target: TargetFile, source: URL
                if isManifest, let (manifestPath, manifest) = ProductTargets.manifest(of: product), let reference = product.manifest {
                    (path, target, source) = (manifestPath, manifest, catalogDirectory.appendingPathComponent(reference.path))
                } else {
                    let targets: ProductTargets
                    do { targets = try ProductTargets(product: product, baseURLs: catalog.baseURLs) } catch {
                        throw .unreadableCatalog(path: catalogURL.path, detail: "product \(product.productID): \(error)")
                    }
                    (path, target, source) = (targets.archivePath, targets.archive, catalogDirectory.appendingPathComponent(product.path))
                }
                guard bin.targets[path] != target else { continue }
                try RepositoryFiles.placeTarget(
                    source, at: layout.target(path, sha256: target.sha256), length: target.length, sha256: target.sha256, durable: false)
                bin.targets[path] = target
                changedProducts.insert(product.productID)
                changed = true
            }
            guard changed else { continue }
            bin.header = MetadataHeader(version: bin.version + 1, expires: expiry(lifetimes.targets))
            if binSigners == nil { binSigners = try Self.signers(for: state.bins.keys, named: "bins", from: signers) }
            let keys = binSigners!
            let (url, version) = try writeBin(name, bin, signers: keys)
            writtenBins[name] = version
            written.append(url)
        }
        guard !writtenBins.isEmpty else { return AddResult(changedProducts: [], written: []) }
        written += try publish(&state, bins: [:], targets: nil, signers: signers, forceSnapshot: true, writtenBins: writtenBins)
        return AddResult(changedProducts: changedProducts.sorted(), written: written)
    }
}
