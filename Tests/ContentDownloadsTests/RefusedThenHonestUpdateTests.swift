import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// An update refused while it installs (its signed manifest lies about a file's size, so a tar header disagrees
/// with it), then an honest update published right after: the honest one always installs, byte for byte, and
/// leaves nothing in `transfers/`, however the refused attempt's cleanup and the next attempt's tree interleave.
/// Each round runs on a fresh store and server; the rounds repeat what a single run hits only sometimes.
@Suite("Updates: a refused update, then an honest one", .serialized)
struct RefusedThenHonestUpdateTests {
    static let productID = "com.example.refused"
    static let rounds = 12

    /// Installed 1.0, published a 1.1 whose manifest lies, and the folders of 1.0, 1.1 and an honest 1.2.
    struct Round {
        let fixture: QueueFixture
        let v1: URL
        let v11: URL
        let v12: URL

        init() throws {
            fixture = try QueueFixture()
            v1 = try fixture.source(RefusedThenHonestUpdateTests.productID, version: "1.0", size: 2 << 20)
            v11 = try fixture.source(RefusedThenHonestUpdateTests.productID, version: "1.1", size: (2 << 20) + 4096)
            v12 = try fixture.source(RefusedThenHonestUpdateTests.productID, version: "1.2", size: (2 << 20) + 8192)
        }

        /// Publishes 1.1 with a manifest that says `blob.bin` is one byte shorter than its tar header does (the
        /// catalog vouches for that manifest's SHA-256), so the download is refused once that header arrives.
        func publishLyingUpdate() throws {
            let catalog = try fixture.publish([v1, v11], chunked: true)
            let reference = try #require(catalog.product(productID)?.manifest)
            let manifestURL = fixture.nginx.root.appendingPathComponent(reference.path)
            var manifest = try PackageManifest.decode(try Data(contentsOf: manifestURL))
            let index = try #require(manifest.files.firstIndex { $0.path == "Contents/art/blob.bin" })
            manifest.files[index].size -= 1
            manifest.uncompressedSize -= 1
            let lying = try manifest.encoded()
            let name = "lying-\(UUID().uuidString).manifest"
            try lying.write(to: fixture.nginx.root.appendingPathComponent(name))
            let catalogFile = fixture.nginx.root.appendingPathComponent("catalog.json")
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: catalogFile)) as? [String: Any])
            var products = try #require(json["products"] as? [[String: Any]])
            let position = try #require(products.firstIndex { $0["productID"] as? String == productID })
            products[position]["manifest"] = ["path": name, "length": lying.count, "sha256": sha256Hex(Array(lying))]
            json["products"] = products
            try JSONSerialization.data(withJSONObject: json).write(to: catalogFile)
        }

        /// Publishes the honest 1.2.
        func publishHonestUpdate() throws { try fixture.publish([v1, v11, v12], chunked: true) }

        /// Checks 1.2 is installed exactly and `transfers/` is empty.
        func expectHonestInstalled(_ store: Store, _ context: String) throws {
            let installed = try #require(store.contentURL(forProductID: productID), "\(context): nothing installed")
            #expect(store.installedVersion(forProductID: productID)?.description == "1.2", "\(context)")
            #expect(try diffTrees(v12, installed).status == 0, "\(context): the installed folder differs from 1.2's source")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: store.transfersDirectory.path)) ?? []
            #expect(left.isEmpty, "\(context): transfers/ keeps \(left)")
        }
    }

    @Test("CLI: download 1.0, a refused 1.1, then 1.2 installs every time")
    func theCLIInstallsTheHonestUpdateAfterARefusedOne() async throws {
        var failures = 0
        for round in 1...Self.rounds {
            let world = try Round()
            let fixture = world.fixture
            try fixture.publish([world.v1], chunked: true)
            let store = fixture.root.appendingPathComponent("cli-store")
            let arguments = ["download", Self.productID, "--catalog", fixture.catalogURL, "--store", store.path, "--retry-delay", "0.1"]
            let first = try await iapcontentOffPool(arguments)
            try #require(first.status == 0, "round \(round): installing 1.0\n\(first.output)")

            try world.publishLyingUpdate()
            let refused = try await iapcontentOffPool(arguments)
            #expect(refused.status != 0, "round \(round): the lying 1.1 was installed\n\(refused.output)")
            #expect(try Store(root: store).installedVersion(forProductID: Self.productID)?.description == "1.0", "round \(round)")

            try world.publishHonestUpdate()
            let honest = try await iapcontentOffPool(arguments)
            if honest.status != 0 { failures += 1 }
            #expect(honest.status == 0, "round \(round): the honest 1.2 failed\n\(honest.output)")
            if honest.status != 0 {
                let retry = try await iapcontentOffPool(arguments)
                #expect(retry.status == 0, "round \(round): a retry after the failure failed too\n\(retry.output)")
            }
            try world.expectHonestInstalled(try Store(root: store), "round \(round)")
        }
        #expect(failures == 0, "\(failures) of \(Self.rounds) honest updates failed")
    }

    @Test("Queue: a refused 1.1, then 1.2 on the same queue and on a reopened one, installs every time",
          arguments: [false, true])
    func theQueueInstallsTheHonestUpdateAfterARefusedOne(reopening: Bool) async throws {
        var failures = 0
        for round in 1...Self.rounds {
            let world = try Round()
            let fixture = world.fixture
            try fixture.publish([world.v1], chunked: true)
            var queue = try fixture.queue()
            try await queue.open()
            try await queue.add(VerifiedPurchase(transactionID: "t-1.0", productID: Self.productID))
            let first = await waitForDownloads(queue, ["t-1.0"])
            try #require(first["t-1.0"]?.downloads.first?.state == .finished, "round \(round): installing 1.0: \(String(describing: first))")
            try await queue.finish("t-1.0")

            try world.publishLyingUpdate()
            await queue.setCatalog(try fixture.catalog())
            try await queue.add(VerifiedPurchase(transactionID: "t-1.1", productID: Self.productID))
            let refused = await waitForDownloads(queue, ["t-1.1"])
            #expect(refused["t-1.1"]?.downloads.first?.state == .failed, "round \(round): \(String(describing: refused))")

            try world.publishHonestUpdate()
            if reopening {
                await queue.close()
                queue = try fixture.queue()
                try await queue.open()
            } else {
                await queue.setCatalog(try fixture.catalog())
            }
            try await queue.add(VerifiedPurchase(transactionID: "t-1.2", productID: Self.productID))
            let honest = await waitForDownloads(queue, ["t-1.2"])
            let download = honest["t-1.2"]?.downloads.first
            if download?.state != .finished { failures += 1 }
            #expect(download?.state == .finished, "round \(round): the honest 1.2: \(String(describing: download))")
            await queue.close()
            try world.expectHonestInstalled(fixture.store, "round \(round)")
        }
        #expect(failures == 0, "\(failures) of \(Self.rounds) honest updates failed")
    }
}
