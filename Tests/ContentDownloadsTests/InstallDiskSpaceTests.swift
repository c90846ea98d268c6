import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A store on a 4 MiB tmpfs: running out of space must give a clear error and keep v1.
/// Where a tmpfs cannot be mounted, the tmpfs tests are reported as skipped (failed when `CI` is set: ``Tmpfs``).
@Suite("Install: disk full", .serialized)
struct InstallDiskSpaceTests {
    @Test("preflight and ENOSPC during extraction both report insufficientSpace; v1 intact; success once space is freed",
          .needsTmpfs)
    func diskFull() throws {
        let fixture = try InstallFixture()
        let tmpfs = try TmpfsMount(size: "4m")
        defer { tmpfs.unmount() }
        let mountPoint = tmpfs.url
        let store = try Store(root: mountPoint.appendingPathComponent("store"))

        func random(_ count: Int, seed: UInt64) -> Data {
            var state = seed
            return Data((0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
        }
        let v1Builder = TestArchiveBuilder.package(productID: InstallFixture.productID, version: "1", files: [
            "a.bin": random(512 << 10, seed: 1),
        ])
        let (v1URL, v1Product) = try fixture.product(v1Builder, name: "v1.tar.zst", version: "1")
        let noMargin = SpacePreflight(marginFraction: 0, marginBytes: 0)
        try ContentInstaller.install(
            archive: v1URL, product: v1Product, store: store, options: .init(spacePreflight: noMargin))
        let content = store.contentDirectory.appendingPathComponent(InstallFixture.productID)
        let v1 = try Snapshot.take(content)

        let v2Builder = TestArchiveBuilder.package(productID: InstallFixture.productID, version: "2", files: [
            "a.bin": random(1 << 20, seed: 2), "b.bin": random(1 << 20, seed: 3),
        ])
        let (v2URL, v2Product) = try fixture.product(v2Builder, name: "v2.tar.zst", version: "2")
        let filler = mountPoint.appendingPathComponent("filler")
        try random(2 << 20, seed: 4).write(to: filler)

        // 1. The preflight refuses up front.
        expectInstallError({
            try ContentInstaller.install(
                archive: v2URL, product: v2Product, store: store, options: .init(removeArchive: false, spacePreflight: noMargin))
        }) { error in
            guard case .insufficientSpace(let needed, let available) = error else { return false }
            return needed >= v2Product.uncompressedSize && available < needed
        }
        #expect(try Snapshot.take(content) == v1)

        // 2. Without the preflight, ENOSPC while writing is mapped to the same error and cleaned up.
        expectInstallError({
            try ContentInstaller.install(
                archive: v2URL, product: v2Product, store: store, options: .init(removeArchive: false, spacePreflight: nil))
        }) { error in
            guard case .insufficientSpace(let needed, _) = error else { return false }
            return needed == v2Product.uncompressedSize
        }
        #expect(try Snapshot.take(content) == v1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.stagingDirectory.path).isEmpty)

        // 3. Free space, retry: success.
        try FileManager.default.removeItem(at: filler)
        try ContentInstaller.install(archive: v2URL, product: v2Product, store: store, options: .init(spacePreflight: noMargin))
        #expect(store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("2"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.stagingDirectory.path).isEmpty)
    }

    @Test("a short preflight empties the trash (deferred deletions) and installs what fits once it is emptied",
          .needsTmpfs)
    func preflightReclaimsTrash() throws {
        let fixture = try InstallFixture()
        let tmpfs = try TmpfsMount(size: "4m")
        defer { tmpfs.unmount() }
        let mountPoint = tmpfs.url
        let store = try Store(root: mountPoint.appendingPathComponent("store"))
        // An old version waiting in the trash holds 3 MiB of the 4.
        let waiting = store.trashDirectory.appendingPathComponent("com.example.levels-old", isDirectory: true)
        try FileManager.default.createDirectory(at: waiting, withIntermediateDirectories: true)
        try Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131) }).write(to: waiting.appendingPathComponent("a.bin"))
        var state: UInt64 = 5
        let builder = TestArchiveBuilder.package(productID: InstallFixture.productID, version: "2", files: [
            "b.bin": Data((0..<(1536 << 10)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }),
        ])
        let (url, product) = try fixture.product(builder, name: "v2.tar.zst", version: "2")
        let noMargin = SpacePreflight(marginFraction: 0, marginBytes: 0)
        #expect(SpacePreflight.availableBytes(atPath: store.root.path) < product.uncompressedSize)
        try ContentInstaller.install(archive: url, product: product, store: store, options: .init(spacePreflight: noMargin))
        #expect(store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("2"))
        #expect(!store.hasTrash)
    }

    @Test("required space = archive + uncompressed + margin")
    func requiredSpace() {
        let preflight = SpacePreflight.standard
        #expect(preflight.required(archiveLength: 100, uncompressedSize: 900) == 1000 + 10 + (16 << 20))
        #expect(SpacePreflight(marginFraction: 0, marginBytes: 0).required(archiveLength: 0, uncompressedSize: 5) == 5)
    }
}
