@testable import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Installs from TUF repositories with the CLI, as an app that ships only the repository's root would: ours, and
/// one written with python-tuf's Metadata API holding our archives and manifests.
@Suite("TUF client: installs with --trusted-root")
struct TUFInstallTests {
    static let maps = TUFClientTests.maps

    /// `download` (then, after a new version, `download` again) with only the root: every byte verified by the
    /// chain the repository signs.
    @Test func downloadWithTheShippedRootInstallsAndThenUpdates() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        let arguments = ["download", Self.maps, "--catalog", fixture.url, "--trusted-root", root.path, "--store", fixture.store.root.path]
        let first = try await iapcontentOffPool(arguments)
        #expect(first.status == 0, "\(first.output)")
        #expect(!first.output.contains("unsigned catalog"), "\(first.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps)?.description == "1.0")

        try fixture.publish([(Self.maps, "2.0")])
        let second = try await iapcontentOffPool(arguments)
        #expect(second.status == 0, "\(second.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps)?.description == "2.0")
        // No catalog.json anywhere: everything came through the repository's metadata and targets.
        #expect(fixture.requests().allSatisfy { $0.path.hasPrefix("/metadata/") || $0.path.hasPrefix("/targets/") })
    }

    /// `restore --entitlements` with only the root, on a device with nothing installed: the entitled products come
    /// through the repository (their bins are asked for because the document names them), and an entitled product
    /// the repository does not list is skipped, not an error.
    @Test func restoreWithEntitlementsInstallsEntitledProductsThroughTheRepository() async throws {
        let music = TUFClientTests.music
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0"), (music, "1.0")])
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        let key = SigningKey.generate()
        let keyFile = fixture.folder.appendingPathComponent("entitlements.key")
        try KeyFile.write(key, to: keyFile)
        let input = fixture.folder.appendingPathComponent("entitlements-input.json")
        let document = fixture.folder.appendingPathComponent("entitlements.json")
        let states = [Self.maps: "active", music: "active", "com.example.withdrawn": "active"]
        try JSONSerialization.data(withJSONObject: ["subject": "customer-1", "products": states]).write(to: input)
        let signed = try await iapcontentOffPool(
            ["entitlements", "sign", input.path, "--signing-key", keyFile.path, "--output", document.path, "--sequence", "1"])
        try #require(signed.status == 0, "\(signed.output)")

        let restored = try await iapcontentOffPool([
            "restore", "--catalog", fixture.url, "--trusted-root", root.path, "--entitlements", document.path,
            "--public-key", key.publicKeyBase64, "--store", fixture.store.root.path,
        ])
        #expect(restored.status == 0, "\(restored.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps)?.description == "1.0")
        #expect(fixture.store.installedVersion(forProductID: music)?.description == "1.0")
        #expect(fixture.store.installedVersion(forProductID: "com.example.withdrawn") == nil)
        #expect(fixture.requests().allSatisfy { $0.path.hasPrefix("/metadata/") || $0.path.hasPrefix("/targets/") })
    }

    /// A served archive that is not the one the bin signs is never installed (arbitrary installation).
    @Test func anArchiveSwappedOnTheServerIsRefusedByItsSignedHash() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let product = try await fixture.client().catalogSource(for: [Self.maps]).product(Self.maps)
        let served = fixture.repository.layout.targets.appendingPathComponent(product.path)
        var bytes = try Data(contentsOf: served)
        bytes[bytes.count / 2] ^= 0xFF
        try FileManager.default.removeItem(at: served)
        try bytes.write(to: served)
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        let result = try await iapcontentOffPool(
            ["download", Self.maps, "--catalog", fixture.url, "--trusted-root", root.path, "--store", fixture.store.root.path, "--max-attempts", "1"])
        #expect(result.status != 0, "\(result.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps) == nil)
    }

    /// An update the trust chain refuses leaves the installed version as it was.
    @Test func aRefusedUpdateLeavesTheInstalledVersion() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        let arguments = ["download", Self.maps, "--catalog", fixture.url, "--trusted-root", root.path, "--store", fixture.store.root.path]
        try #require(try await iapcontentOffPool(arguments).status == 0)
        let folder = try #require(fixture.store.contentURL(forProductID: Self.maps))
        let before = try Data(contentsOf: folder.appendingPathComponent("Contents/data.bin"))
        try fixture.publish([(Self.maps, "2.0")])
        try fixture.serve(Data(repeating: 0x20, count: 20 << 10), at: fixture.repository.layout.timestamp)
        let refused = try await iapcontentOffPool(arguments + ["--json"])
        #expect(refused.status != 0 && refused.output.contains("metadataTooLarge"), "\(refused.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps)?.description == "1.0")
        #expect(try Data(contentsOf: folder.appendingPathComponent("Contents/data.bin")) == before)
    }

    /// A refusal by the trust chain is the command's error, with its code under `--json`.
    @Test func aRefusedRepositoryIsTheDownloadsErrorAndInstallsNothing() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        try fixture.serve(Data(repeating: 0x20, count: 20 << 10), at: fixture.repository.layout.timestamp)
        let result = try await iapcontentOffPool(
            ["download", Self.maps, "--catalog", fixture.url, "--trusted-root", root.path, "--store", fixture.store.root.path, "--json"])
        #expect(result.status != 0)
        #expect(result.output.contains("metadataTooLarge"), "\(result.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps) == nil)
    }

    /// A patch `catalog` publishes is hosted in the repository beside the product's targets, named in the entry the
    /// bin signs: an update from the installed version fetches it and no chunk.
    @Test func anUpdateFetchesThePatchTheRepositoryHostsAndNoChunk() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        let id = "com.example.docs"
        let common = PackageFixture.text(count: 400_000, seed: 9)
        func version(_ version: String, _ note: String) throws -> (package: URL, packed: URL) {
            let package = try PackageFixture.make(
                at: fixture.folder.appendingPathComponent("docs-\(version)"), productID: id, version: version,
                files: ["Contents/book.txt": common, "Contents/note.txt": Data(note.utf8)])
            let packed = fixture.folder.appendingPathComponent("docs-in-\(version)")
            _ = try Packer(chunked: true).pack(folder: package, outputDirectory: packed)
            return (package, packed)
        }
        func add(_ packed: URL, _ name: String) throws {
            let catalog = fixture.folder.appendingPathComponent(name)
            _ = try CatalogBuilder(inputDirectory: packed, outputDirectory: catalog).build()
            try fixture.repository.add(catalogDirectory: catalog, signers: [fixture.onlineKey])
        }
        let v1 = try version("1.0", "first edition\n"), v2 = try version("2.0", "second edition, with an errata page\n")
        try add(v1.packed, "docs-catalog-1")
        let root = fixture.folder.appendingPathComponent("shipped-root.json")
        try fixture.shippedRoot.write(to: root)
        let arguments = ["download", id, "--catalog", fixture.url, "--trusted-root", root.path, "--store", fixture.store.root.path]
        let first = try await iapcontentOffPool(arguments)
        try #require(first.status == 0, "\(first.output)")

        let manifest = { (packed: URL, version: String) in try Data(contentsOf: packed.appendingPathComponent("\(id)-\(version).manifest")) }
        let (patch, _) = try PatchWriter.write(
            oldManifest: try manifest(v1.packed, "1.0"), oldFolder: v1.package, newManifest: try manifest(v2.packed, "2.0"), newFolder: v2.package)
        try patch.write(to: v2.packed.appendingPathComponent("\(id)-1.0-to-2.0.patch"))
        try add(v2.packed, "docs-catalog-2")
        let before = fixture.requests().count
        let update = try await iapcontentOffPool(arguments)
        #expect(update.status == 0, "\(update.output)")
        #expect(fixture.store.installedVersion(forProductID: id)?.description == "2.0")
        let paths = fixture.requests(after: before).map(\.path)
        #expect(paths.contains { $0.hasPrefix("/targets/\(id)/") && $0.hasSuffix(".patch") }, "\(paths)")
        #expect(!paths.contains { $0.hasSuffix(".tar.zst") || $0.hasSuffix(".manifest") }, "\(paths)")
        let installed = try #require(fixture.store.contentURL(forProductID: id))
        #expect(try Data(contentsOf: installed.appendingPathComponent("Contents/note.txt")) == Data("second edition, with an errata page\n".utf8))
    }

    static let pythonRepository = """
        import json, os, sys, hashlib, shutil
        from datetime import datetime, timedelta, timezone
        from securesystemslib.signer import CryptoSigner
        from tuf.api.metadata import (Metadata, Root, Targets, Snapshot, Timestamp, SuccinctRoles, Delegations,
                                      TargetFile, MetaFile)
        from tuf.api.serialization.json import JSONSerializer
        out, spec = sys.argv[1], json.load(open(sys.argv[2]))
        meta_dir, targets_dir = os.path.join(out, "metadata"), os.path.join(out, "targets")
        os.makedirs(meta_dir, exist_ok=True)
        expires = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=7)
        signer = CryptoSigner.generate_ed25519()
        key = signer.public_key
        root = Root(expires=expires, consistent_snapshot=True)
        for role in ["root", "targets", "snapshot", "timestamp"]:
            root.add_key(key, role)
        succinct = SuccinctRoles(keyids=[key.keyid], threshold=1, bit_length=spec["bitLength"], name_prefix="bins")
        top = Targets(expires=expires)
        top.delegations = Delegations(keys={key.keyid: key}, roles=None, succinct_roles=succinct)
        bins = {name: Targets(expires=expires) for name in succinct.get_roles()}
        for path, target in spec["targets"].items():
            bins[succinct.get_role_for_target(path)].targets[path] = TargetFile.from_dict(dict(target), path)
            source = spec["files"][path]
            sha = target["hashes"]["sha256"]
            folder = os.path.join(targets_dir, os.path.dirname(path))
            os.makedirs(folder, exist_ok=True)
            shutil.copyfile(source, os.path.join(folder, sha + "." + os.path.basename(path)))
        snapshot = Snapshot(expires=expires)
        snapshot.meta["targets.json"] = MetaFile(1)
        def write(signed, name):
            md = Metadata(signed)
            md.sign(signer)
            data = md.to_bytes(JSONSerializer(compact=False))
            open(os.path.join(meta_dir, name), "wb").write(data)
            return data
        write(root, "1.root.json")
        write(top, "1.targets.json")
        for name, signed in bins.items():
            write(signed, f"1.{name}.json")
            snapshot.meta[f"{name}.json"] = MetaFile(1)
        data = write(snapshot, "1.snapshot.json")
        timestamp = Timestamp(expires=expires, snapshot_meta=MetaFile(1, len(data), {"sha256": hashlib.sha256(data).hexdigest()}))
        write(timestamp, "timestamp.json")
        """

    /// python-tuf's Metadata API writes root, targets with succinct bins, the bins (our archive and manifest as
    /// targets, the catalog entry in `custom`), snapshot and timestamp: no snapshot tree, so our client reads the
    /// standard snapshot; the CLI installs from it.
    @Test(.needsPythonTUF) func aRepositoryWrittenByPythonTUFInstalls() async throws {
        let fixture = try TUFClientFixture(products: [(Self.maps, "1.0")])
        // Our repository's targets (archive and manifest, with their custom fields) as the input python-tuf signs.
        let state = try RepositoryState(layout: fixture.repository.layout)
        var targets: [String: JSONValue] = [:]
        var files: [String: JSONValue] = [:]
        let mapsPaths = ProductTargetPaths(productID: Self.maps, bitLength: state.bins.bitLength)
        for path in [mapsPaths.archive, mapsPaths.manifest()] {
            let target = try #require(try state.bin(state.bins.binName(for: path)).signed.targets[path])
            targets[path] = target.json
            files[path] = .string(fixture.repository.layout.target(path, sha256: target.sha256).path)
        }
        let spec = fixture.folder.appendingPathComponent("spec.json")
        let bits = JSONValue.integer(Int64(state.bins.bitLength))
        try Data(JSONValue.object(["targets": .object(targets), "files": .object(files), "bitLength": bits]).canonicalBytes).write(to: spec)
        let written = fixture.folder.appendingPathComponent("python-repo")
        let result = try PythonTUF.run(Self.pythonRepository, [written.path, spec.path])
        try #require(result.status == 0, "python-tuf: \(result.stderr)")

        let nginx = try Nginx(root: written)
        defer { nginx.stop() }
        let root = written.appendingPathComponent("metadata/1.root.json")
        let install = try await iapcontentOffPool(
            ["download", Self.maps, "--catalog", nginx.baseURL + "/", "--trusted-root", root.path, "--store", fixture.store.root.path])
        #expect(install.status == 0, "\(install.output)")
        #expect(fixture.store.installedVersion(forProductID: Self.maps)?.description == "1.0")
        let paths = nginx.requests().map { String($0.request.split(separator: " ")[1]) }
        #expect(paths.contains("/metadata/1.snapshot.json"), "\(paths)")
    }
}
