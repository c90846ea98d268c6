@testable import ContentDelivery
import ContentPackaging
import Foundation
import Testing

/// Writing the repository: what `init`, `add`, `refresh`, `rotate-root` and `key` write, and that it verifies.
@Suite("Repository: writing a TUF repository")
struct TUFRepositoryTests {
    @Test func initWritesRootTargetsEveryBinSnapshotAndTimestamp() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 4)
        let files = try fixture.metadataFiles()
        #expect(files.contains("1.root.json") && files.contains("1.targets.json") && files.contains("1.snapshot.json"))
        #expect(files.contains("timestamp.json"))
        #expect(files.filter { $0.hasPrefix("1.bins-") }.count == 16)
        #expect(files.contains("1.bins-0.json") && files.contains("1.bins-f.json"))
        let state = try RepositoryState(layout: repository.layout)
        #expect(state.root.signed.role("root").threshold == 2)
        #expect(state.root.signed.consistentSnapshot)
        #expect(state.snapshot.signed.meta.count == 17)
        #expect(state.timestamp.signed.snapshot.hashes?["sha256"] != nil)
        #expect(throws: RepositoryError.alreadyInitialized(path: fixture.directory.path)) {
            try repository.initialize(rootSigners: fixture.rootKeys, rootThreshold: 2, onlineSigners: [fixture.onlineKey], binsBitLength: 4)
        }
    }

    @Test func binNamesAndNumbersFollowTheSuccinctRules() {
        let keys = RoleKeys(keyIDs: ["k"], threshold: 1)
        #expect(SuccinctRoles(keys: keys, bitLength: 1, namePrefix: "bins").binName(1) == "bins-1")
        #expect(SuccinctRoles(keys: keys, bitLength: 5, namePrefix: "bins").binName(3) == "bins-03")
        #expect(SuccinctRoles(keys: keys, bitLength: 14, namePrefix: "b").binName(0x3fff) == "b-3fff")
        // SHA-256("a") starts ca978112: the first 8 bits are 0xca, the first 12 0xca9.
        #expect(SuccinctRoles(keys: keys, bitLength: 8, namePrefix: "bins").binName(for: "a") == "bins-ca")
        #expect(SuccinctRoles(keys: keys, bitLength: 12, namePrefix: "bins").binName(for: "a") == "bins-ca9")
        #expect(SuccinctRoles(keys: keys, bitLength: 32, namePrefix: "bins").binNumber(for: "a") == 0xca978112)
        #expect(SuccinctRoles(keys: keys, bitLength: 4, namePrefix: "bins").isBin("bins-a"))
        #expect(!SuccinctRoles(keys: keys, bitLength: 4, namePrefix: "bins").isBin("bins-0a"))
    }

    @Test func addRewritesOnlyTheChangedBinsThenSnapshotAndTimestamp() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 6)
        let first = try fixture.catalog("site1", [("com.example.a", "1.0"), ("com.example.b", "1.0")])
        let added = try repository.add(catalogDirectory: first, signers: [fixture.onlineKey])
        #expect(added.changedProducts == ["com.example.a", "com.example.b"])
        let state = try RepositoryState(layout: repository.layout)
        let bins = state.bins
        let paths = ProductTargetPaths(productID: "com.example.a", bitLength: 6)
        #expect(bins.binName(for: paths.archive) == bins.binName(for: paths.manifest()))
        let target = try state.bin(bins.binName(for: paths.archive)).signed.targets[paths.archive]
        let product = try #require(target.flatMap(ProductTargets.product(in:)))
        #expect(product.contentVersion.description == "1.0" && product.path == paths.archive)
        let stored = repository.layout.target(paths.archive, sha256: product.sha256)
        #expect(FileManager.default.fileExists(atPath: stored.path))
        #expect(stored.lastPathComponent == "\(product.sha256).\((paths.archive as NSString).lastPathComponent)")

        // The same catalog again: nothing written.
        let before = try fixture.metadataFiles()
        #expect(try repository.add(catalogDirectory: first, signers: [fixture.onlineKey]).written.isEmpty)
        #expect(try fixture.metadataFiles() == before)

        // A new version of one product: its bin, snapshot 3, timestamp; no other bin, no root, no targets.
        let second = try fixture.packedCatalog("site2", [("com.example.a", "2.0")])
        let result = try repository.add(catalogDirectory: second, signers: [fixture.onlineKey])
        #expect(result.changedProducts == ["com.example.a"])
        let treeNodes = result.written.filter { $0.deletingLastPathComponent().lastPathComponent == "snapshot-tree" }
        #expect(treeNodes.count == 2, "the changed leaf page and the root: \(treeNodes)")
        let names = result.written.filter { !treeNodes.contains($0) }.map(\.lastPathComponent)
        #expect(names.suffix(2) == ["3.snapshot.json", "timestamp.json"])
        #expect(result.written.count == 5, "one bin, two tree nodes, the snapshot, the timestamp: \(names)")
        let binFiles = names.dropLast(2)
        #expect(binFiles.map { String($0.split(separator: ".")[1]) } == [bins.binName(for: paths.archive)])
        let after = try RepositoryState(layout: repository.layout)
        #expect(after.targets.signed.version == 1 && after.root.signed.version == 1)
        #expect(after.timestamp.signed.snapshot.version == 3)
        // The tree the timestamp names gives the bin's new version from two nodes.
        let tree = try #require(after.timestamp.signed.snapshotTree)
        let binFile = "\(bins.binName(for: paths.archive)).json"
        let index = try #require(after.snapshot.signed.meta.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.firstIndex(of: binFile))
        let leaf = try tree.leaf(at: index) { hash in
            FileManager.default.contents(atPath: repository.layout.snapshotTreeNode(hash).path).map(Array.init)
        }
        #expect(leaf == SnapshotTree.Leaf(name: binFile, version: after.snapshot.signed.meta[binFile]!.version))
    }

    @Test func refreshResignsOnlyWhatIsDueAndIsIdempotent() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        _ = try fixture.initialize(bits: 2)
        #expect(try fixture.repository().refresh(signers: [fixture.onlineKey]).isEmpty)
        // 13 hours on: past half the timestamp's day, not the snapshot's week.
        let later = fixture.repository(now: RepositoryFixture.now.addingTimeInterval(13 * 3600))
        #expect(try later.refresh(signers: [fixture.onlineKey]).map(\.lastPathComponent) == ["timestamp.json"])
        #expect(try later.refresh(signers: [fixture.onlineKey]).isEmpty)
        // Four days on: the snapshot too.
        let days = fixture.repository(now: RepositoryFixture.now.addingTimeInterval(4 * 86_400))
        #expect(try days.refresh(signers: [fixture.onlineKey]).map(\.lastPathComponent) == ["2.snapshot.json", "timestamp.json"])
        // 200 days on: past half the bins' and the targets' year: every bin, the targets, the snapshot, the timestamp.
        let state = try RepositoryState(layout: fixture.repository().layout)
        let binURL = fixture.repository().layout.versioned("bins-0", 1)
        #expect(TUFRepository.expiry(inFileStart: binURL) == (try state.bin("bins-0").signed.header.expires))
        let months = fixture.repository(now: RepositoryFixture.now.addingTimeInterval(200 * 86_400))
        let renewed = try months.refresh(signers: [fixture.onlineKey]).map(\.lastPathComponent)
        #expect(renewed.filter { $0.contains(".bins-") }.count == 4)
        #expect(renewed.contains("2.targets.json") && renewed.contains("3.snapshot.json") && renewed.last == "timestamp.json")
        #expect(try months.refresh(signers: [fixture.onlineKey]).isEmpty)
        // A wrong key is refused, naming the role.
        #expect(throws: RepositoryError.self) { try fixture.repository().refresh(signers: [fixture.rootKeys[0]], force: true) }
    }

    @Test func rotateRootIsSignedByOldAndNewThresholds() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 1)
        let newKeys = (0..<2).map { _ in KeyFileSigner(SigningKey.generate()) }
        // One old key is below the old threshold of 2.
        #expect(throws: RepositoryError.self) {
            try repository.rotateRoot(signers: [fixture.rootKeys[0]] + newKeys, newRootKeys: newKeys.map(\.key), newThreshold: 2)
        }
        try repository.rotateRoot(signers: Array(fixture.rootKeys[1...2]) + newKeys, newRootKeys: newKeys.map(\.key), newThreshold: 2)
        let one = try SignedMetadata<RootMetadata>(parsing: Data(contentsOf: repository.layout.versioned("root", 1)), roleName: "root")
        let two = try SignedMetadata<RootMetadata>(parsing: Data(contentsOf: repository.layout.versioned("root", 2)), roleName: "root")
        try two.verifyAsSuccessor(of: one.signed)
        #expect(throws: MetadataError.self) { try one.verifyAsSuccessor(of: two.signed) }
        // Signed by the new keys alone, the link does not hold: the old threshold is missing.
        var forged = SignedMetadata(two.signed)
        for key in newKeys { try forged.sign(with: key) }
        #expect(throws: MetadataError.thresholdNotMet(role: "root version 2 (by the keys of version 1)", valid: 0, threshold: 2)) {
            try forged.verifyAsSuccessor(of: one.signed)
        }
        #expect(two.signed.keys[fixture.rootKeys[0].key.keyID] == nil)
        // The old keys cannot sign root 3.
        #expect(throws: RepositoryError.self) {
            try repository.rotateRoot(signers: fixture.rootKeys, newRootKeys: fixture.rootKeys.map(\.key), newThreshold: 2)
        }
    }

    @Test func revokingTheTimestampKeyNeedsANewRootAndANewKey() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 2)
        let newOnline = KeyFileSigner(SigningKey.generate())
        try repository.changeKeys(role: "timestamp", add: [newOnline.key], revoke: [], rootSigners: fixture.rootKeys, onlineSigners: [fixture.onlineKey])
        let written = try repository.changeKeys(
            role: "timestamp", add: [], revoke: [fixture.onlineKey.key.keyID], rootSigners: fixture.rootKeys,
            onlineSigners: [fixture.onlineKey, newOnline])
        #expect(written.map(\.lastPathComponent) == ["3.root.json", "3.snapshot.json", "timestamp.json"])
        let state = try RepositoryState(layout: repository.layout)
        #expect(state.root.signed.role("timestamp").keyIDs == [newOnline.key.keyID])
        #expect(state.timestamp.signatures.map(\.keyID) == [newOnline.key.keyID])
        #expect(throws: RepositoryError.unknownRole("root")) {
            try repository.changeKeys(role: "root", add: [], revoke: [], rootSigners: fixture.rootKeys, onlineSigners: [newOnline])
        }
        #expect(throws: RepositoryError.noKeysLeft(role: "timestamp")) {
            try repository.changeKeys(
                role: "timestamp", add: [], revoke: [newOnline.key.keyID], rootSigners: fixture.rootKeys, onlineSigners: [newOnline])
        }
        // The bins' key: revoking re-signs every bin.
        try repository.changeKeys(role: "bins", add: [newOnline.key], revoke: [], rootSigners: [], onlineSigners: [fixture.onlineKey, newOnline])
        let revoked = try repository.changeKeys(
            role: "bins", add: [], revoke: [fixture.onlineKey.key.keyID], rootSigners: [], onlineSigners: [fixture.onlineKey, newOnline])
        #expect(revoked.filter { $0.lastPathComponent.contains(".bins-") }.count == 4)
        let after = try RepositoryState(layout: repository.layout)
        #expect(try after.bin("bins-0").signatures.map(\.keyID) == [newOnline.key.keyID])
    }

    @Test func aPublishThatStoppedHalfWayLeavesNothingInTheNextOnesWay() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 2)
        // What a command that died before its timestamp leaves: versioned files no snapshot or timestamp names.
        let state = try RepositoryState(layout: repository.layout)
        for name in ["2.bins-0.json", "2.bins-1.json", "2.bins-2.json", "2.bins-3.json", "2.snapshot.json"] {
            try Data("{}".utf8).write(to: repository.layout.metadata.appendingPathComponent(name))
        }
        let written = try repository.add(
            catalogDirectory: fixture.catalog("site", [("com.example.a", "1.0")]), signers: [fixture.onlineKey]
        ).written.map(\.lastPathComponent)
        #expect(written.contains("3.snapshot.json"), "\(written)")
        let after = try RepositoryState(layout: repository.layout)
        #expect(after.snapshot.signed.version == 3 && after.timestamp.signed.version == state.timestamp.signed.version + 1)
        #expect(after.snapshot.signed.meta.values.allSatisfy { $0.version != 2 })
    }

    /// An archive whose bytes are not the ones its catalog entry names, found while the workers make the bins, stops
    /// the publish before its snapshot: the timestamp still names what it named. A wrong file left at a target's
    /// name (a run that stopped between linking and hashing) is replaced by the next publish, and a malformed
    /// `catalog.json` changes nothing.
    @Test func aBadTargetOrCatalogStopsThePublishBeforeItsSnapshotAndALeftoverIsReplaced() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 4)
        let products = (0..<12).map { ("com.example.p\($0)", "1.0") }
        let site = try fixture.catalog("site", products)
        let catalog = try Catalog.load(from: Data(contentsOf: site.appendingPathComponent(Catalog.fileName)))
        let victim = catalog.products[7]
        let archive = site.appendingPathComponent(victim.path)
        let good = try Data(contentsOf: archive)
        var bad = good
        bad[bad.count / 2] ^= 0xFF
        try FileManager.default.removeItem(at: archive)
        try bad.write(to: archive)
        let timestamp = try Data(contentsOf: repository.layout.timestamp)
        #expect {
            try repository.add(catalogDirectory: site, signers: [fixture.onlineKey])
        } throws: { error in
            guard case RepositoryError.targetMismatch(let path, _, _) = error else { return false }
            return path.hasSuffix(victim.path)
        }
        #expect(try Data(contentsOf: repository.layout.timestamp) == timestamp)
        let stored = repository.layout.targetPath(
            ProductTargetPaths(productID: victim.productID, bitLength: 4).archive, sha256: victim.sha256)
        #expect(!FileManager.default.fileExists(atPath: stored))

        // What a run that stopped after linking a wrong file to the target's name leaves; then the right bytes.
        try FileManager.default.createDirectory(
            atPath: (stored as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bad.write(to: URL(fileURLWithPath: stored))
        try FileManager.default.removeItem(at: archive)
        try good.write(to: archive)
        let added = try repository.add(catalogDirectory: site, signers: [fixture.onlineKey])
        #expect(added.changedProducts == products.map(\.0).sorted())
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == good)

        let malformed = fixture.folder.appendingPathComponent("malformed")
        try FileManager.default.createDirectory(at: malformed, withIntermediateDirectories: true)
        try Data(#"{"products":[{"productID":"x"}"#.utf8).write(to: malformed.appendingPathComponent(Catalog.fileName))
        let files = try fixture.metadataFiles()
        #expect {
            try repository.add(catalogDirectory: malformed, signers: [fixture.onlineKey])
        } throws: { error in
            guard case RepositoryError.unreadableCatalog(_, let detail) = error else { return false }
            return detail.contains("before the top-level object closes")
        }
        #expect(try fixture.metadataFiles() == files)
    }

    /// A catalog entry naming a file outside its folder (absolute, `..`) is refused before any file is read or placed.
    @Test(arguments: ["/etc/passwd", "../outside.tar.zst", "archives/../../outside.tar.zst", ""])
    func aCatalogEntryNamingAFileOutsideItsFolderIsRefused(_ path: String) throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 2)
        let site = try fixture.catalog("site", [("com.example.a", "1.0")])
        let url = site.appendingPathComponent(Catalog.fileName)
        var catalog = try Catalog.load(from: Data(contentsOf: url))
        catalog.products[0].path = path
        try catalog.encoded().write(to: url)
        let files = try fixture.metadataFiles()
        #expect {
            try repository.add(catalogDirectory: site, signers: [fixture.onlineKey])
        } throws: { error in
            guard case RepositoryError.unreadableCatalog(_, let detail) = error else { return false }
            return detail.contains("products[0].path") && detail.contains("leads outside the catalog folder")
        }
        #expect(try fixture.metadataFiles() == files)
        let placed = (try? FileManager.default.contentsOfDirectory(atPath: repository.layout.targets.path)) ?? []
        #expect(placed.isEmpty, "\(placed)")
    }

    @Test func aSecondCommandOnTheSameRepositoryIsRefusedWhileTheFirstRuns() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 1)
        let lock = try RepositoryLock(repository.layout)
        #expect(throws: RepositoryError.busy(path: fixture.directory.path)) {
            try repository.refresh(signers: [fixture.onlineKey], force: true)
        }
        _ = consume lock
        #expect(try !repository.refresh(signers: [fixture.onlineKey], force: true).isEmpty)
    }
}
