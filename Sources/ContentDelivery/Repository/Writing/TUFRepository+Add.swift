package import Foundation
import Synchronization

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
    ///
    /// Memory holds where each entry lies in `catalog.json` (``CatalogFileIndex``) and one bin, never the catalog's
    /// products all at once: the entries are decoded once to find their bins, then again bin by bin.
    @discardableResult
    package func add(catalogDirectory: URL, signers: [any MetadataSigner]) throws(RepositoryError) -> AddResult {
        let catalogURL = catalogDirectory.appendingPathComponent(Catalog.fileName)
        let catalog: CatalogFileIndex
        do { catalog = try CatalogFileIndex(path: catalogURL.path) } catch {
            throw .unreadableCatalog(path: catalogDirectory.path, detail: error.description)
        }
        let lock = try RepositoryLock(layout)
        defer { _ = lock }
        var state = try RepositoryState(layout: layout)
        let bins = state.bins
        let decoder = Catalog.decoder
        let folder = catalogDirectory.path

        // Which bins the products' targets fall in: for each bin, its products' indexes, times two, plus one for a
        // manifest target (the targets themselves are made one bin at a time, so memory never holds them all). Each
        // product's target paths come from a search (``ProductTargetPaths``), run on every core for a batch and kept
        // as its two numbers for the bins' pass.
        var byBin: [Int: [UInt32]] = [:]
        var pathNumbers = [UInt64](repeating: 0, count: catalog.entries.count)
        let batch = 4096
        for first in stride(from: 0, to: catalog.entries.count, by: batch) {
            let products: [CatalogProduct]
            do { products = try catalog.products(first..<min(first + batch, catalog.entries.count), decoder: decoder) } catch {
                throw .unreadableCatalog(path: catalogDirectory.path, detail: error.description)
            }
            let paths = Self.targetPaths(of: products.map(\.productID), bitLength: bins.bitLength)
            for (offset, product) in products.enumerated() {
                let index = UInt32(first + offset), productPaths = paths[offset]
                pathNumbers[Int(index)] = UInt64(productPaths.archiveNumber) << 32 | UInt64(productPaths.manifestNumber)
                byBin[bins.binNumber(for: productPaths.archive), default: []].append(index << 1)
                if let (path, _) = ProductTargets.manifest(of: product, paths: productPaths) {
                    byBin[bins.binNumber(for: path), default: []].append(index << 1 | 1)
                }
                try Self.checkInside(product, index: Int(index), catalog: catalogURL.path)
                for patch in product.patches ?? [] {
                    // Not a target (the archive target's entry signs it): stored beside the product's targets by hash.
                    try RepositoryFiles.placeTarget(
                        "\(folder)/\(patch.path)",
                        at: layout.targets.appendingPathComponent(ProductTargets.patchFile(productID: product.productID, sha256: patch.sha256)).path,
                        length: patch.length, sha256: patch.sha256, durable: false)
                }
            }
        }

        // Bins are independent until the snapshot names them: each worker takes every other bin (decoding its
        // products, placing their targets, signing and writing it), so hashing and signing use both cores.
        let numbers = byBin.keys.sorted()
        let binSigners = Result { () throws(RepositoryError) in try Self.signers(for: state.bins.keys, named: "bins", from: signers) }
        let outcomes = Mutex<[BinOutcome]>([])
        let failure = Mutex<RepositoryError?>(nil)
        let workers = max(1, min(Self.addWorkers, numbers.count))
        let work = BinWork(
            repository: self, state: state, catalog: catalog, folder: folder, byBin: byBin, pathNumbers: pathNumbers,
            binSigners: binSigners)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let decoder = Catalog.decoder, encoder = Catalog.encoder
            for position in stride(from: worker, to: numbers.count, by: workers) {
                guard failure.withLock({ $0 == nil }) else { return }
                do throws(RepositoryError) {
                    if let outcome = try work.add(bin: numbers[position], decoder: decoder, encoder: encoder) {
                        outcomes.withLock { $0.append(outcome) }
                    }
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                    return
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let done = outcomes.withLock { $0 }.sorted { $0.number < $1.number }
        guard !done.isEmpty else { return AddResult(changedProducts: [], written: []) }
        var written = done.map(\.url)
        let writtenBins = Dictionary(uniqueKeysWithValues: done.map { ($0.name, $0.version) })
        written += try publish(&state, bins: [:], targets: nil, signers: signers, forceSnapshot: true, writtenBins: writtenBins)
        return AddResult(changedProducts: Set(done.flatMap(\.changedProducts)).sorted(), written: written)
    }

    /// Refuses an entry whose archive, manifest or patch path is absolute or has a `..` component: `add` reads those
    /// files from the catalog folder, never from elsewhere on the machine.
    static func checkInside(_ product: CatalogProduct, index: Int, catalog: String) throws(RepositoryError) {
        let paths = [("path", product.path), ("manifest.path", product.manifest?.path)]
            + (product.patches ?? []).enumerated().map { ("patches[\($0.offset)].path", $0.element.path) }
        for case let (key, path?) in paths
        where path.isEmpty || path.hasPrefix("/") || path.split(separator: "/", omittingEmptySubsequences: false).contains("..") || path.utf8.contains(0) {
            throw .unreadableCatalog(
                path: catalog,
                detail: "products[\(index)].\(key) \"\(path.prefix(200))\" leads outside the catalog folder; a catalog names its files relative to it (iapcontent catalog writes archives/<sha256>.tar.zst)")
        }
    }

    /// The target paths of `productIDs` in bins of `bitLength` bits, searched on every core.
    static func targetPaths(of productIDs: [String], bitLength: Int) -> [ProductTargetPaths] {
        let workers = max(1, min(addWorkers, productIDs.count))
        let found = Mutex<[Int: [ProductTargetPaths]]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let mine = stride(from: worker, to: productIDs.count, by: workers).map {
                ProductTargetPaths(productID: productIDs[$0], bitLength: bitLength)
            }
            found.withLock { $0[worker] = mine }
        }
        let byWorker = found.withLock { $0 }
        return productIDs.indices.map { byWorker[$0 % workers]![$0 / workers] }
    }

    /// How many bins `add` makes at once.
    static var addWorkers: Int { min(4, ProcessInfo.processInfo.activeProcessorCount) }

    /// A bin `add` rewrote.
    struct BinOutcome: Sendable {
        var number: Int
        var name: String
        var url: URL
        var version: Int64
        var changedProducts: [String]
    }

    /// What every bin of one `add` shares: read only, so the workers share it as it is.
    struct BinWork: Sendable {
        let repository: TUFRepository
        let state: RepositoryState
        let catalog: CatalogFileIndex
        let folder: String
        /// For each bin, its products' indexes times two, plus one for a manifest target.
        let byBin: [Int: [UInt32]]
        /// For each product, the number in its archive's path (high 32 bits) and in its manifest's (low 32 bits).
        let pathNumbers: [UInt64]
        /// The keys the bins are signed with, or why they are not all given (thrown only when a bin changed).
        let binSigners: Result<[any MetadataSigner], RepositoryError>

        /// Decodes the products of bin `number`, places their new or changed targets, and signs and writes the bin;
        /// `nil` when none of its targets changed.
        func add(bin number: Int, decoder: JSONDecoder, encoder: JSONEncoder) throws(RepositoryError) -> BinOutcome? {
            let layout = repository.layout
            let name = state.bins.binName(number)
            var bin = try state.bin(name).signed
            let codes = byBin[number]!.sorted()
            var indexes: [Int] = []
            for code in codes where indexes.last != Int(code >> 1) { indexes.append(Int(code >> 1)) }
            let decoded: [CatalogProduct]
            do { decoded = try catalog.products(at: indexes, decoder: decoder) } catch {
                throw .unreadableCatalog(path: folder, detail: error.description)
            }
            var changedProducts: [String] = []
            var position = -1
            for code in codes {
                let index = Int(code >> 1), isManifest = code & 1 == 1
                if position < 0 || indexes[position] != index { position += 1 }
                let product = decoded[position]
                let numbers = pathNumbers[index]
                let paths = ProductTargetPaths(
                    productID: product.productID, archiveNumber: Int(numbers >> 32), manifestNumber: Int(numbers & 0xFFFF_FFFF))
                let path: String, target: TargetFile, source: String
                if isManifest, let (manifestPath, manifest) = ProductTargets.manifest(of: product, paths: paths),
                   let reference = product.manifest {
                    (path, target, source) = (manifestPath, manifest, "\(folder)/\(reference.path)")
                } else {
                    let targets: ProductTargets
                    do {
                        targets = try ProductTargets(product: product, paths: paths, baseURLs: catalog.header.baseURLs, encoder: encoder)
                    } catch {
                        throw .unreadableCatalog(path: catalog.path, detail: "product \(product.productID): \(error)")
                    }
                    (path, target, source) = (targets.archivePath, targets.archive, "\(folder)/\(product.path)")
                }
                guard bin.targets[path] != target else { continue }
                try RepositoryFiles.placeTarget(
                    source, at: layout.targetPath(path, sha256: target.sha256), length: target.length, sha256: target.sha256,
                    durable: false)
                bin.targets[path] = target
                if changedProducts.last != product.productID { changedProducts.append(product.productID) }
            }
            guard !changedProducts.isEmpty else { return nil }
            bin.header = MetadataHeader(version: bin.version + 1, expires: repository.expiry(repository.lifetimes.targets))
            let (url, version) = try repository.writeBin(name, bin, signers: binSigners.get())
            return BinOutcome(number: number, name: name, url: url, version: version, changedProducts: changedProducts)
        }
    }
}
