import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A content folder with what Apple-hosted content holds (localized strings, nested folders, a binary
/// `ContentInfo.plist` with Xcode's `Folder` key) and a place to import into.
struct ImportFixture {
    let directory: TemporaryDirectory
    /// The original content folder every source is made from.
    let original: URL
    /// An empty folder; imports write `out/Levels`.
    let outputParent: URL

    var output: URL { outputParent.appendingPathComponent("Levels") }

    init(productID: String = "com.example.levels", version: String = "1.2") throws {
        directory = try TemporaryDirectory("import")
        original = directory.appending("original/Levels")
        outputParent = directory.appending("out")
        try FileManager.default.createDirectory(at: outputParent, withIntermediateDirectories: true)
        try PackageFixture.make(at: original, productID: productID, version: version, files: [
            "Contents/levels.json": Data("{\"levels\": 12}\n".utf8),
            "Contents/art/blob.bin": PackageFixture.bytes(count: 300_000, seed: 7),
            "Contents/en.lproj/ContentInfo.strings": Data("\"title\" = \"Levels\";\n".utf8),
            "Contents/fr.lproj/ContentInfo.strings": Data("\"title\" = \"Niveaux\";\n".utf8),
            "Contents/maps/a.map": Data("a\n".utf8),
            "Contents/maps/deep/b.map": PackageFixture.bytes(count: 5_000, seed: 9),
        ])
        let plist = PackageFixture.binaryContentInfo([
            "ContentVersion": version, "IAPProductIdentifier": productID, "Folder": "Levels",
        ])
        try plist.write(to: original.appendingPathComponent("ContentInfo.plist"))
    }

    /// A copy of the original, as an Xcode target builds it, at `built/Levels`.
    func builtTarget() throws -> URL {
        let url = directory.appending("built/Levels")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: original, to: url)
        return url
    }

    /// The Xcode project of the original at `project/`.
    func xcodeProject(extra: [XcodeProjectFixture.Reference] = [], infoPlistFile: String? = nil) throws -> XcodeProjectFixture {
        try XcodeProjectFixture(content: original, root: directory.appending("project"), extra: extra, infoPlistFile: infoPlistFile)
    }

    /// The package `productbuild --content` makes of the original, written by libarchive, at `Levels.pkg`.
    func productArchive() throws -> URL {
        let url = directory.appending("Levels.pkg")
        try AppleContentFixture.productArchive(of: original).write(to: url)
        return url
    }

    /// A hand-built package around `payload` with the given declarations, at `Hostile.pkg`.
    func handBuilt(_ payload: TestArchiveBuilder, numberOfFiles: Int? = nil, installKBytes: Int? = nil) throws -> URL {
        let url = directory.appending("Hostile.pkg")
        try AppleContentFixture.handBuiltProductArchive(
            payload: try payload.data(), numberOfFiles: numberOfFiles ?? payload.entries.count,
            installKBytes: installKBytes ?? AppleContentFixture.installKBytes(payload)
        ).write(to: url)
        return url
    }

    /// The original's payload plus `change` applied to its cpio entries.
    func payload(_ change: (inout TestArchiveBuilder) -> Void = { _ in }) throws -> TestArchiveBuilder {
        var payload = try AppleContentFixture.payload(of: original)
        change(&payload)
        return payload
    }

    /// Expects `folder` to hold exactly the original's files, byte for byte (`diff -r`).
    func expectSameAsOriginal(_ folder: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let diff = try CommandRunner.run("/usr/bin/diff", ["-r", original.path, folder.path])
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)", sourceLocation: sourceLocation)
    }

    /// Names left in the output's parent (an import that fails leaves none).
    func leftovers() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: outputParent.path)) ?? []).sorted()
    }
}
