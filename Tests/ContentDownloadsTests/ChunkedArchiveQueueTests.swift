import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The queue installs a chunk-indexed archive in place: it fetches the manifest the signed catalog names, then
/// the archive's chunks straight into the tree that becomes the installed folder.
@Suite struct ChunkedArchiveQueueTests {
    @Test func aChunkedArchiveDownloadsAndInstallsByteIdentical() async throws {
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 9 << 20)
        let catalog = try fixture.publish([maps], chunked: true)
        let reference = try #require(catalog.products.first?.manifest)
        let manifestData = try Data(contentsOf: fixture.nginx.root.appendingPathComponent(reference.path))
        #expect((try PackageManifest.decode(manifestData).chunks?.count ?? 0) >= 3)

        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-maps", productID: "com.example.maps"))
        let ended = await waitForDownloads(queue, ["t-maps"])
        let download = try #require(ended["t-maps"]?.downloads.first)
        #expect(download.state == .finished, "\(download.state) \(download.error?.message ?? "")")
        let diff = try diffTrees(maps, try #require(download.contentURL))
        #expect(diff.status == 0, "diff -r: \(diff.stdout)\(diff.stderr)")
        await queue.close()
    }

    @Test func theQueueFetchesTheManifestAndInstallsInPlace() async throws {
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 3 << 20)
        try fixture.publish([maps], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let run = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path, "-vv"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("manifest kept: the archive installs chunk by chunk"), "\(run.output)")
        #expect(run.output.contains("installed chunk by chunk while downloading"), "\(run.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: "com.example.maps"))
        #expect(try diffTrees(maps, installed).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("transfers").path)
        #expect(left.isEmpty, "transfers/ keeps \(left)")
        let manifests = fixture.nginx.requests().filter { $0.request.contains("manifests/") }
        #expect(manifests.count == 1)
    }
}

/// Past the old 2 GiB cap: a 3 GiB package (one file of zeros) packs and installs, and its zeros stay holes.
@Suite struct LargeChunkedPackageTests {
    @Test func aThreeGiBSparsePackagePacksAndInstalls() async throws {
        let fixture = try QueueFixture()
        let folder = fixture.root.appendingPathComponent("sources/com.example.huge-1.0", isDirectory: true)
        try PackageFixture.make(at: folder, productID: "com.example.huge", version: "1.0", files: ["Contents/readme.txt": Data("zeros\n".utf8)])
        let zeros = folder.appendingPathComponent("Contents/zeros.bin").path
        let size: Int64 = 3 << 30
        #expect(truncate(zeros, off_t(size)) == 0 || FileManager.default.createFile(atPath: zeros, contents: nil) && truncate(zeros, off_t(size)) == 0)
        let catalog = try await offPool { try fixture.publish([folder], chunked: true) }  // packs 3 GiB: off the pool
        let product = try #require(catalog.product("com.example.huge"))
        #expect(product.uncompressedSize > size)

        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-huge", productID: "com.example.huge"))
        let ended = await waitForDownloads(queue, ["t-huge"], timeout: 600)
        let download = try #require(ended["t-huge"]?.downloads.first)
        #expect(download.state == .finished, "\(download.state) \(download.error?.message ?? "")")
        await queue.close()
        let installed = try #require(download.contentURL).appendingPathComponent("Contents/zeros.bin").path
        var info = stat()
        #expect(stat(installed, &info) == 0)
        #expect(Int64(info.st_size) == size)
        #expect(Int64(info.st_blocks) * 512 < 64 << 20, "the zeros take \(Int64(info.st_blocks) * 512) bytes on disk")
        let compare = try await offPool { try CommandRunner.run("/usr/bin/cmp", ["-n", String(size), installed, "/dev/zero"]) }
        #expect(compare.status == 0, "\(compare.stdout)\(compare.stderr)")
    }
}

/// `iapcontent verify` re-hashes an installed product against the manifest it was installed from.
@Suite struct ContentVerificationTests {
    @Test func verifyFindsDamagedMissingAndExtraFiles() async throws {
        let fixture = try QueueFixture()
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 2 << 20)
        try fixture.publish([maps], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let run = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(run.status == 0, "\(run.output)")
        let intact = try await iapcontentOffPool(["verify", "com.example.maps", "--store", store.path])
        #expect(intact.status == 0 && intact.output.contains("com.example.maps 1.0: intact"), "\(intact.output)")

        let content = try #require(try Store(root: store).contentURL(forProductID: "com.example.maps"))
        let blob = content.appendingPathComponent("Contents/art/blob.bin")
        let handle = try FileHandle(forUpdating: blob)
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data([0x55]))
        try handle.close()
        try FileManager.default.removeItem(at: content.appendingPathComponent("Contents/version.txt"))
        try Data("stray".utf8).write(to: content.appendingPathComponent("Contents/stray.txt"))

        let damaged = try await iapcontentOffPool(["verify", "com.example.maps", "--store", store.path, "--json"])
        #expect(damaged.status == 1, "\(damaged.output)")
        let jsonStart = try #require(damaged.output.firstIndex(of: "{"))
        let result = try JSONDecoder().decode(ContentVerification.self, from: Data(damaged.output[jsonStart...].utf8))
        #expect(result.damaged == ["Contents/art/blob.bin"])
        #expect(result.missing == ["Contents/version.txt"])
        #expect(result.extra == ["Contents/stray.txt"])
        #expect(!result.isIntact)

        let none = try await iapcontentOffPool(["verify", "com.example.other", "--store", store.path])
        #expect(none.status == 1 && none.output.contains("not installed"), "\(none.output)")
    }
}

/// A hostile update installed in place fails with a clear error and leaves the installed version as it was.
@Suite struct ChunkedUpdateRefusalTests {
    @Test func anUpdateWhoseHeadersDisagreeWithItsManifestLeavesTheInstalledVersionIntact() async throws {
        let fixture = try QueueFixture()
        let v1 = try fixture.source("com.example.maps", version: "1.0", size: 2 << 20)
        try fixture.publish([v1], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let first = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(first.status == 0, "\(first.output)")

        // Version 2, whose (catalog-vouched) manifest says blob.bin is one byte shorter than its tar header does.
        let v2 = try fixture.source("com.example.maps", version: "2.0", size: 2 << 20)
        let catalog = try fixture.publish([v1, v2], chunked: true)
        let reference = try #require(catalog.product("com.example.maps")?.manifest)
        let manifestURL = fixture.nginx.root.appendingPathComponent(reference.path)
        var manifest = try PackageManifest.decode(try Data(contentsOf: manifestURL))
        let index = try #require(manifest.files.firstIndex { $0.path == "Contents/art/blob.bin" })
        manifest.files[index].size -= 1
        manifest.uncompressedSize -= 1
        let lying = try manifest.encoded()
        try lying.write(to: manifestURL)
        let catalogFile = fixture.nginx.root.appendingPathComponent("catalog.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: catalogFile)) as? [String: Any])
        var products = try #require(json["products"] as? [[String: Any]])
        let position = try #require(products.firstIndex { $0["productID"] as? String == "com.example.maps" })
        products[position]["manifest"] = ["path": reference.path, "length": lying.count, "sha256": sha256Hex(Array(lying))]
        json["products"] = products
        try JSONSerialization.data(withJSONObject: json).write(to: catalogFile)

        let update = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(update.status != 0)
        // An update built from the installed version finds the file wrong when it hashes it against the manifest;
        // a full download in place finds the tar header wrong first. Either way it fails and names the file.
        #expect(update.output.contains("blob.bin: does not match the signed manifest")
            || update.output.contains("disagrees with the signed package manifest"), "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: "com.example.maps"))
        #expect(try Store(root: store).installedVersion(forProductID: "com.example.maps")?.description == "1.0")
        #expect(try diffTrees(v1, installed).status == 0)
        let verify = try await iapcontentOffPool(["verify", "com.example.maps", "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
    }
}
