import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Content imported from each of Apple's shapes packs, downloads from nginx and installs byte-identical to
/// the folder it was made from, through the normal path (pack → catalog → ContentQueue).
@Suite struct ImportRoundTripTests {
    /// A content folder like Apple-hosted content: localized strings, nested folders, a binary plist with `Folder`.
    private func original(_ fixture: QueueFixture, productID: String) throws -> URL {
        let folder = fixture.root.appendingPathComponent("originals/\(productID)/Levels", isDirectory: true)
        try PackageFixture.make(at: folder, productID: productID, version: "1.0", files: [
            "Contents/levels.json": Data("{\"levels\": 12}\n".utf8),
            "Contents/art/blob.bin": PackageFixture.bytes(count: 700_000, seed: 3),
            "Contents/en.lproj/ContentInfo.strings": Data("\"title\" = \"Levels\";\n".utf8),
            "Contents/fr.lproj/ContentInfo.strings": Data("\"title\" = \"Niveaux\";\n".utf8),
            "Contents/maps/deep/b.map": PackageFixture.bytes(count: 5_000, seed: 4),
        ])
        try PackageFixture.binaryContentInfo(["ContentVersion": "1.0", "IAPProductIdentifier": productID, "Folder": "Levels"])
            .write(to: folder.appendingPathComponent("ContentInfo.plist"))
        return folder
    }

    @Test func eachSourceImportsPacksDownloadsAndInstallsByteIdentical() async throws {
        let fixture = try QueueFixture()
        let imported = fixture.root.appendingPathComponent("imported", isDirectory: true)
        try FileManager.default.createDirectory(at: imported, withIntermediateDirectories: true)
        var originals: [String: URL] = [:]
        var folders: [URL] = []

        let built = try original(fixture, productID: "com.example.built")
        originals["com.example.built"] = built
        folders.append(try ContentImporter().importContent(from: built, to: imported.appendingPathComponent("built")).folder)

        let projectSource = try original(fixture, productID: "com.example.project")
        originals["com.example.project"] = projectSource
        let project = try XcodeProjectFixture(content: projectSource, root: fixture.root.appendingPathComponent("LevelsProject"))
        folders.append(try ContentImporter().importContent(from: project.root, to: imported.appendingPathComponent("project")).folder)

        // The package goes through the command line, --pack included.
        let packageSource = try original(fixture, productID: "com.example.package")
        originals["com.example.package"] = packageSource
        let package = fixture.root.appendingPathComponent("Levels.pkg")
        try AppleContentFixture.productArchive(of: packageSource).write(to: package)
        let packed = fixture.root.appendingPathComponent("cli-packed")
        try FileManager.default.createDirectory(at: packed, withIntermediateDirectories: true)
        let folder = imported.appendingPathComponent("package")
        let run = try await iapcontentOffPool(["import", package.path, "--output", folder.path, "--pack", "--pack-output", packed.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("com.example.package 1.0: 6 files"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: packed.appendingPathComponent("com.example.package-1.0.tar.zst").path))
        folders.append(folder)

        try fixture.publish(folders, chunked: true)
        let queue = try fixture.queue()
        try await queue.open()
        for productID in originals.keys.sorted() {
            try await queue.add(VerifiedPurchase(transactionID: "t-\(productID)", productID: productID))
        }
        let ended = await waitForDownloads(queue, originals.keys.sorted().map { "t-\($0)" })
        for (productID, source) in originals {
            let download = try #require(ended["t-\(productID)"]?.downloads.first)
            #expect(download.state == .finished, "\(productID): \(download.state) \(download.error?.message ?? "")")
            let diff = try diffTrees(source, try #require(download.contentURL))
            #expect(diff.status == 0, "\(productID): diff -r: \(diff.stdout)\(diff.stderr)")
        }
        await queue.close()
    }
}
