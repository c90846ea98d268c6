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
        let folder = catalogDirectory.path

        // Which bins the products' targets fall in: for each bin, its products' indexes, times two, plus one for a
        // manifest target (the targets themselves are made one bin at a time, so memory never holds them all). Batches
        // of products are decoded, their target paths searched (``ProductTargetPaths``) and their patches placed on
        // every core; each product's paths are kept as their two numbers for the bins' pass.
        let batch = 4096
        let batches = (catalog.entries.count + batch - 1) / batch
        let planned = Mutex<[Int: [PlannedProduct]]>([:])
        let planFailure = Mutex<(batch: Int, error: RepositoryError)?>(nil)
        DispatchQueue.concurrentPerform(iterations: max(1, min(Self.addWorkers, batches))) { worker in
            let decoder = Catalog.decoder
            for number in stride(from: worker, to: batches, by: Self.addWorkers) {
                guard planFailure.withLock({ $0 == nil || $0!.batch > number }) else { return }
                let first = number * batch
                do throws(RepositoryError) {
                    let plan = try plan(
                        first..<min(first + batch, catalog.entries.count), of: catalog, in: catalogDirectory, bins: bins, decoder: decoder)
                    planned.withLock { $0[number] = plan }
                } catch {
                    planFailure.withLock { if $0 == nil || $0!.batch > number { $0 = (number, error) } }
                    return
                }
            }
        }
        if let (_, error) = planFailure.withLock({ $0 }) { throw error }
        var byBin: [Int: [UInt32]] = [:]
        var pathNumbers = [UInt64](repeating: 0, count: catalog.entries.count)
        let plans = planned.withLock { $0 }
        for number in 0..<batches {
            for (offset, product) in plans[number]!.enumerated() {
                let index = UInt32(number * batch + offset)
                pathNumbers[Int(index)] = product.pathNumbers
                byBin[Int(product.archiveBin), default: []].append(index << 1)
                if product.manifestBin >= 0 { byBin[Int(product.manifestBin), default: []].append(index << 1 | 1) }
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
            let decoder = Catalog.decoder
            for position in stride(from: worker, to: numbers.count, by: workers) {
                guard failure.withLock({ $0 == nil }) else { return }
                do throws(RepositoryError) {
                    if let outcome = try work.add(bin: numbers[position], decoder: decoder) {
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

    /// Where one product's targets go: their bins and the numbers in their paths.
    struct PlannedProduct: Sendable {
        /// The number in its archive's path (high 32 bits) and in its manifest's (low 32 bits).
        var pathNumbers: UInt64
        var archiveBin: Int32
        /// -1 without a manifest.
        var manifestBin: Int32
    }

    /// Decodes the catalog entries `range`, checks their paths stay inside `directory`, searches their target paths,
    /// and places their patches (not targets: the archive target's entry signs them), stored beside the product's
    /// targets by hash.
    func plan(
        _ range: Range<Int>, of catalog: CatalogFileIndex, in directory: URL, bins: SuccinctRoles, decoder: JSONDecoder
    ) throws(RepositoryError) -> [PlannedProduct] {
        let products: [CatalogProduct]
        do { products = try catalog.products(range, decoder: decoder) } catch {
            throw .unreadableCatalog(path: directory.path, detail: error.description)
        }
        var plan: [PlannedProduct] = []
        plan.reserveCapacity(products.count)
        for (offset, product) in products.enumerated() {
            try Self.checkInside(product, index: range.lowerBound + offset, catalog: catalog.path)
            let paths = ProductTargetPaths(productID: product.productID, bitLength: bins.bitLength)
            let manifestBin = ProductTargets.manifest(of: product, paths: paths).map { bins.binNumber(for: $0.path) } ?? -1
            plan.append(PlannedProduct(
                pathNumbers: UInt64(paths.archiveNumber) << 32 | UInt64(paths.manifestNumber),
                archiveBin: Int32(bins.binNumber(for: paths.archive)), manifestBin: Int32(manifestBin)))
            for patch in product.patches ?? [] {
                try RepositoryFiles.placeTarget(
                    "\(directory.path)/\(patch.path)",
                    at: layout.targets.appendingPathComponent(ProductTargets.patchFile(productID: product.productID, sha256: patch.sha256)).path,
                    length: patch.length, sha256: patch.sha256, durable: false)
            }
        }
        return plan
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
        func add(bin number: Int, decoder: JSONDecoder) throws(RepositoryError) -> BinOutcome? {
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
                    let targets = ProductTargets(product: product, paths: paths, baseURLs: catalog.header.baseURLs)
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
