@testable import ContentDelivery
import Foundation
import Testing
import TestSupport

/// python-tuf 7's `ngclient.Updater`, the reference TUF client, reads a repository this code wrote, served by nginx
/// on loopback: bootstrap with our `1.root.json`, refresh, find a product's archive through its succinct bin,
/// download and verify it; then, after a root rotation and a new version, refresh again by the root chain.
@Suite("Repository: python-tuf reads our repository")
struct PythonTUFInteropTests {
    static let client = """
        import json, os, sys
        from tuf.ngclient import Updater
        base, work, bootstrap, *paths = sys.argv[1:]
        metadata = os.path.join(work, "metadata"); targets = os.path.join(work, "targets")
        os.makedirs(metadata, exist_ok=True); os.makedirs(targets, exist_ok=True)
        root = open(bootstrap, "rb").read() if bootstrap != "-" else None
        updater = Updater(metadata_dir=metadata, metadata_base_url=base + "/metadata/", target_dir=targets,
                          target_base_url=base + "/targets/", bootstrap=root)
        updater.refresh()
        out = {"root": updater._trusted_set.root.version, "timestamp": updater._trusted_set.timestamp.version, "targets": {}}
        for path in paths:
            info = updater.get_targetinfo(path)
            if info is None:
                out["targets"][path] = None
                continue
            local = updater.download_target(info, os.path.join(targets, path.replace("/", "_")))
            out["targets"][path] = {"length": info.length, "sha256": info.hashes["sha256"], "custom": info.custom,
                                    "downloaded": os.path.getsize(local)}
        print(json.dumps(out))
        """

    struct Seen: Decodable {
        struct Target: Decodable, Equatable {
            var length: Int
            var sha256: String
            var downloaded: Int
        }
        var root: Int
        var timestamp: Int
        var targets: [String: Target?]
    }

    func refresh(_ nginx: Nginx, work: URL, bootstrap: URL?, paths: [String]) throws -> (Seen, String) {
        let result = try PythonTUF.run(Self.client, [nginx.baseURL, work.path, bootstrap?.path ?? "-"] + paths)
        try #require(result.status == 0, "python-tuf refused: \(result.stderr)")
        return (try JSONDecoder().decode(Seen.self, from: Data(result.stdout.utf8)), result.stdout)
    }

    @Test(.needsPythonTUF) func updaterRefreshesAndDownloadsThroughTheBinsAcrossARootRotation() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 4, now: Date())
        try repository.add(
            catalogDirectory: fixture.packedCatalog("v1", [("com.example.maps", "1.0"), ("com.example.music", "1.0")]),
            signers: [fixture.onlineKey])
        let nginx = try Nginx(root: fixture.directory)
        defer { nginx.stop() }
        let work = fixture.folder.appendingPathComponent("python-client")
        let paths = ProductTargetPaths(productID: "com.example.maps", bitLength: 4)
        let archive = paths.archive, manifest = paths.manifest()

        let (first, firstText) = try refresh(
            nginx, work: work, bootstrap: repository.layout.versioned("root", 1), paths: [archive, manifest, "com.example.none/x.tar.zst"])
        #expect(first.root == 1)
        let state = try RepositoryState(layout: repository.layout)
        let published = try #require(try state.bin(state.bins.binName(for: archive)).signed.targets[archive])
        let seen = try #require(first.targets[archive] ?? nil)
        #expect(seen.sha256 == published.sha256 && seen.length == Int(published.length) && seen.downloaded == seen.length)
        #expect(first.targets[manifest] != nil)
        #expect(first.targets["com.example.none/x.tar.zst"] == .some(nil))
        #expect(firstText.contains(#""contentVersion": "1.0""#))

        // Rotate the root to two new keys; publish version 2.0 of maps. The client follows 1 → 2 by itself.
        let newRoot = (0..<2).map { _ in KeyFileSigner(SigningKey.generate()) }
        try repository.rotateRoot(signers: Array(fixture.rootKeys[0...1]) + newRoot, newRootKeys: newRoot.map(\.key), newThreshold: 2)
        try repository.add(catalogDirectory: fixture.packedCatalog("v2", [("com.example.maps", "2.0")]), signers: [fixture.onlineKey])
        let (second, secondText) = try refresh(nginx, work: work, bootstrap: nil, paths: [archive])
        #expect(second.root == 2)
        #expect(second.timestamp > first.timestamp)
        let updated = try #require(second.targets[archive] ?? nil)
        #expect(updated.sha256 != seen.sha256 && updated.downloaded == updated.length)
        #expect(secondText.contains(#""contentVersion": "2.0""#))
    }

    /// The leak drill: the online key leaks; the root holders add a new key to every online role and revoke the
    /// leaked one (four root versions later). A client shipping root 1 catches up by the chain and then refuses a
    /// timestamp the leaked key signed.
    @Test(.needsPythonTUF) func afterRevocationAClientRefusesWhatTheLeakedKeySigns() throws {
        let fixture = try RepositoryFixture()
        defer { fixture.remove() }
        let repository = try fixture.initialize(bits: 3, now: Date())
        try repository.add(catalogDirectory: fixture.packedCatalog("v1", [("com.example.maps", "1.0")]), signers: [fixture.onlineKey])
        let leaked = fixture.onlineKey
        let replacement = KeyFileSigner(SigningKey.generate())
        let both: [any MetadataSigner] = [leaked, replacement]
        for role in TUFRepository.onlineRoles {
            try repository.changeKeys(role: role, add: [replacement.key], revoke: [], rootSigners: fixture.rootKeys, onlineSigners: both)
        }
        for role in TUFRepository.onlineRoles {
            try repository.changeKeys(role: role, add: [], revoke: [leaked.key.keyID], rootSigners: fixture.rootKeys, onlineSigners: both)
        }
        let nginx = try Nginx(root: fixture.directory)
        defer { nginx.stop() }
        let archive = ProductTargetPaths(productID: "com.example.maps", bitLength: 3).archive
        let (caughtUp, _) = try refresh(
            nginx, work: fixture.folder.appendingPathComponent("client"), bootstrap: repository.layout.versioned("root", 1), paths: [archive])
        #expect(caughtUp.root == 7)
        #expect(caughtUp.targets[archive] != nil)

        // Whoever holds the leaked key signs a newer timestamp: refused, by a client that never updated the app.
        let state = try RepositoryState(layout: repository.layout)
        var forged = SignedMetadata(
            TimestampMetadata(
                header: MetadataHeader(version: state.timestamp.signed.version + 1, expires: Date().addingTimeInterval(86_400)),
                snapshot: state.timestamp.signed.snapshot))
        try forged.sign(with: leaked)
        try forged.fileBytes.write(to: repository.layout.timestamp)
        let refused = try PythonTUF.run(
            Self.client, [nginx.baseURL, fixture.folder.appendingPathComponent("fresh").path, repository.layout.versioned("root", 1).path, archive])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("UnsignedMetadataError"), "\(refused.stderr.suffix(600))")
    }

    /// Our bin of a path is python-tuf's (`SuccinctRoles.get_role_for_target`), for every bit length and paths of any
    /// bytes.
    @Test(.needsPythonTUF) func binsAreTheOnesPythonTUFComputes() throws {
        let paths = ["a", "com.example.maps/com.example.maps.tar.zst", "é/🙂 x", ""] + (0..<20).map { "p\($0)/\(UUID().uuidString)" }
        let bits = [1, 2, 3, 4, 5, 8, 11, 14, 16, 31, 32]
        let result = try PythonTUF.run(
            """
            import json, sys
            from tuf.api.metadata import SuccinctRoles
            paths, bits = json.loads(sys.argv[1]), json.loads(sys.argv[2])
            print(json.dumps([[SuccinctRoles([], 1, b, "bins").get_role_for_target(p) for p in paths] for b in bits]))
            """, [String(decoding: try JSONSerialization.data(withJSONObject: paths), as: UTF8.self), "\(bits)"])
        try #require(result.status == 0, "\(result.stderr)")
        let theirs = try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
        let ours = bits.map { bitLength in
            paths.map { SuccinctRoles(keys: RoleKeys(keyIDs: [], threshold: 1), bitLength: bitLength, namePrefix: "bins").binName(for: $0) }
        }
        #expect(ours == theirs)
    }
}
