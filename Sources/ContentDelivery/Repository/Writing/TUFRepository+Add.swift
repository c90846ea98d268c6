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

        // The new targets, by bin, with the files they come from.
        var wanted: [String: [(path: String, target: TargetFile, source: URL)]] = [:]
        for product in catalog.products {
            let targets: ProductTargets
            do { targets = try ProductTargets(product: product, baseURLs: catalog.baseURLs) } catch {
                throw .unreadableCatalog(path: catalogURL.path, detail: "product \(product.productID): \(error)")
            }
            for patch in product.patches ?? [] {
                // Not a target (the archive target's entry signs it): stored beside the product's targets by hash.
                try RepositoryFiles.placeTarget(
                    catalogDirectory.appendingPathComponent(patch.path),
                    at: layout.targets.appendingPathComponent(ProductTargets.patchFile(productID: product.productID, sha256: patch.sha256)),
                    length: patch.length, sha256: patch.sha256, durable: false)
            }
            wanted[bins.binName(for: targets.archivePath), default: []].append(
                (targets.archivePath, targets.archive, catalogDirectory.appendingPathComponent(product.path)))
            if let path = targets.manifestPath, let manifest = targets.manifest, let reference = product.manifest {
                wanted[bins.binName(for: path), default: []].append(
                    (path, manifest, catalogDirectory.appendingPathComponent(reference.path)))
            }
        }

        var changedBins: [String: TargetsMetadata] = [:]
        var changedProducts: Set<String> = []
        for name in wanted.keys.sorted() {
            var bin = try state.bin(name).signed
            var changed = false
            for entry in wanted[name]! where bin.targets[entry.path] != entry.target {
                try RepositoryFiles.placeTarget(
                    entry.source, at: layout.target(entry.path, sha256: entry.target.sha256), length: entry.target.length,
                    sha256: entry.target.sha256, durable: false)
                bin.targets[entry.path] = entry.target
                changedProducts.insert(String(entry.path.split(separator: "/").first ?? ""))
                changed = true
            }
            guard changed else { continue }
            bin.header = MetadataHeader(version: bin.version + 1, expires: expiry(lifetimes.targets))
            changedBins[name] = bin
        }
        guard !changedBins.isEmpty else { return AddResult(changedProducts: [], written: []) }
        let written = try publish(&state, bins: changedBins, targets: nil, signers: signers)
        return AddResult(changedProducts: changedProducts.sorted(), written: written)
    }
}
