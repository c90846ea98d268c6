import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// A whole archive whose identical files are hard links (what `pack` writes) installs every file with its bytes;
/// the links are made inside the staging folder, to files the same archive put there.
@Suite("Install: archives with hard links to earlier files")
struct InstallLinkedArchiveTests {
    @Test("a hard link to an earlier file of the archive installs as a second name of that file")
    func installsLinkToEarlierFile() throws {
        let fixture = try InstallFixture()
        var builder = InstallFixture.package(version: "2")
        builder.hardlink("Contents/copy.bin", target: "Contents/art/big.bin")
        let (url, product) = try fixture.product(builder, name: "linked.tar.zst", version: "2")
        let installed = try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
        let original = try Data(contentsOf: installed.appendingPathComponent("Contents/art/big.bin"))
        #expect(try Data(contentsOf: installed.appendingPathComponent("Contents/copy.bin")) == original)
        var info = stat()
        #expect(lstat(installed.appendingPathComponent("Contents/copy.bin").path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }

    @Test("a hard link to an earlier file that carries data is refused before it is made, and v1 stays")
    func refusesLinkCarryingData() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        var builder = InstallFixture.package(version: "2")
        builder.zstd = false
        let plain = fixture.archives.appendingPathComponent("plain.tar")
        try builder.write(to: plain)
        // libarchive's writer drops a hard link's data, so the entry is made by hand: header, data, end of archive.
        var bytes = try Data(contentsOf: plain)
        while bytes.count >= 512, bytes.suffix(512).allSatisfy({ $0 == 0 }) { bytes.removeLast(512) }
        let data = Data("overwrite".utf8)
        // A pax header first: libarchive then honours a hard link's size (pax lets a hard link carry data).
        let records = Data("19 path=Contents/h\n".utf8)
        bytes.append(Self.ustarHeader(name: "PaxHeader/h", typeFlag: "x", size: records.count, linkName: ""))
        bytes.append(records + Data(count: 512 - records.count))
        bytes.append(Self.ustarHeader(name: "Contents/h", typeFlag: "1", size: data.count, linkName: "Contents/version.txt"))
        bytes.append(data + Data(count: 512 - data.count))
        bytes.append(Data(count: 1024))
        let url = fixture.archives.appendingPathComponent("data-link.tar")
        try bytes.write(to: url)
        let product = try InstallFixture.catalogProduct(
            for: url, productID: InstallFixture.productID, version: "2", uncompressedSize: builder.declaredUncompressedSize,
            entryCount: builder.entries.count + 1)
        expectInstallError({
            try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
        }) { error in
            error.description.contains("hard link") && error.description.contains("Contents/h")
        }
        #expect(try Snapshot.take(fixture.contentFolder) == v1, "v1 changed")
        #expect(fixture.stagingNames().isEmpty, "staging leftovers")
    }

    /// One ustar header block (mode 0644, owner 0, time 0) with its checksum.
    static func ustarHeader(name: String, typeFlag: Character, size: Int, linkName: String) -> Data {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) { for (index, byte) in text.utf8.enumerated() { block[offset + index] = byte } }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        let octal = String(size, radix: 8)
        put(String(repeating: "0", count: 11 - octal.count) + octal, at: 124)
        put("00000000000", at: 136)
        put("        ", at: 148)
        put(String(typeFlag), at: 156)
        put(linkName, at: 157)
        put("ustar", at: 257)
        put("00", at: 263)
        let sum = block.reduce(0) { $0 + Int($1) }
        let checksum = String(sum, radix: 8)
        put(String(repeating: "0", count: 6 - checksum.count) + checksum, at: 148)
        block[154] = 0
        block[155] = UInt8(ascii: " ")
        return Data(block)
    }

    @Test("the archive pack writes for variants sharing files installs whole, every file with its bytes, and verifies")
    func installsPackedArchive() throws {
        let fixture = try InstallFixture()
        let files = sharedVariantDownloadFiles()
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("pkg"), productID: InstallFixture.productID, version: "3", files: files,
            extraKeys: sharedVariantDownloadKeys)
        var packer = Packer()
        packer.linkedFileMinimum = 4 << 10  // the small copies as links too (the default starts at 256 KiB)
        let packed = try packer.pack(folder: folder, outputDirectory: fixture.archives)
        #expect((packed.manifest.linkedFiles ?? []).count == 4)
        let product = try InstallFixture.catalogProduct(
            for: packed.archiveURL, productID: InstallFixture.productID, version: "3",
            uncompressedSize: packed.manifest.uncompressedSize, entryCount: packed.manifest.entryCount)
        let installed = try ContentInstaller.install(
            archive: packed.archiveURL, product: product, store: fixture.store, manifest: packed.manifest, options: InstallFixture.options)
        for (path, data) in files {
            #expect(try Data(contentsOf: installed.appendingPathComponent(path)) == data, "\(path)")
        }
    }
}
