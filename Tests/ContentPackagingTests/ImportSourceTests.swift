import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// Each of Apple's three shapes imports into a content folder identical to the one it was made from.
@Suite("import: sources")
struct ImportSourceTests {
    @Test("a built target imports byte for byte; .DS_Store, ._ files and executables are dropped, one line each")
    func builtTarget() throws {
        let fixture = try ImportFixture()
        let built = try fixture.builtTarget()
        try Data("x".utf8).write(to: built.appendingPathComponent(".DS_Store"))
        try Data("x".utf8).write(to: built.appendingPathComponent("Contents/art/._blob.bin"))
        try Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0]).write(to: built.appendingPathComponent("Contents/tool"))
        let result = try ContentImporter().importContent(from: built, to: fixture.output)
        #expect(result.sourceKind == .builtTarget)
        #expect(result.contentInfo.productID == "com.example.levels")
        #expect(result.contentInfo.otherKeys["Folder"] == "Levels")
        try fixture.expectSameAsOriginal(fixture.output)
        let lines = result.notes.map(\.description)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("dropped \(built.path)/.DS_Store: Finder metadata") })
        #expect(lines.contains { $0.hasPrefix("dropped \(built.path)/Contents/art/._blob.bin: AppleDouble") })
        #expect(lines.contains { $0.hasPrefix("dropped \(built.path)/Contents/tool: is executable code (ELF") })
        #expect(fixture.leftovers() == ["Levels"])
        #expect(PackageValidator().validate(folder: fixture.output).isValid)
    }

    @Test("an Xcode project imports: INFOPLIST_FILE, files, localized variant groups, folder references")
    func xcodeProject() throws {
        let fixture = try ImportFixture()
        let project = try fixture.xcodeProject()
        #expect(!FileManager.default.fileExists(atPath: project.root.appendingPathComponent("Levels/Contents").path))
        for source in [project.root, project.bundle] {
            let output = fixture.outputParent.appendingPathComponent(source.lastPathComponent + "-import")
            let result = try ContentImporter().importContent(from: source, to: output)
            #expect(result.sourceKind == .xcodeProject)
            try fixture.expectSameAsOriginal(output)
        }
    }

    @Test("the package productbuild uploads imports (libarchive's xar, gzip'd odc cpio payload)")
    func productArchive() throws {
        let fixture = try ImportFixture()
        let package = try fixture.productArchive()
        let result = try ContentImporter().importContent(from: package, to: fixture.output)
        #expect(result.sourceKind == .productArchive)
        #expect(result.notes.isEmpty, "\(result.notes)")
        try fixture.expectSameAsOriginal(fixture.output)
    }

    @Test("an XML ContentInfo.plist with keys of its own is kept byte for byte, from each of the three sources")
    func xmlContentInfoKept() throws {
        let fixture = try ImportFixture()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>ContentVersion</key>
            \t<string>1.2</string>
            \t<key>Folder</key>
            \t<string>Levels</string>
            \t<key>IAPProductIdentifier</key>
            \t<string>com.example.levels</string>
            \t<key>Tags</key>
            \t<array><string>maps</string><string>art</string></array>
            </dict>
            </plist>

            """
        let bytes = Data(xml.utf8)
        try bytes.write(to: fixture.original.appendingPathComponent("ContentInfo.plist"))
        let project = try fixture.xcodeProject()
        let sources = [try fixture.builtTarget(), project.root, try fixture.productArchive()]
        for source in sources {
            let output = fixture.outputParent.appendingPathComponent(source.lastPathComponent + "-xml")
            let result = try ContentImporter().importContent(from: source, to: output)
            #expect(try Data(contentsOf: output.appendingPathComponent("ContentInfo.plist")) == bytes, "\(result.sourceKind)")
            #expect(result.contentInfo.otherKeys["Folder"] == "Levels")
            try fixture.expectSameAsOriginal(output)
        }
    }

    @Test("the temporary folders a killed import left beside --output go with the next import; one being built stays")
    func abandonedTemporaryFolders() throws {
        let fixture = try ImportFixture()
        let abandoned = fixture.outputParent.appendingPathComponent(".Levels.import-0123456789ab")
        try FileManager.default.createDirectory(at: abandoned.appendingPathComponent("Contents"), withIntermediateDirectories: true)
        try Data("half".utf8).write(to: abandoned.appendingPathComponent("Contents/part"))
        let running = fixture.outputParent.appendingPathComponent(".Levels.import-ba9876543210")
        try FileManager.default.createDirectory(at: running, withIntermediateDirectories: true)
        let held = open(running.path, O_RDONLY | O_DIRECTORY)
        #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }
        _ = try ContentImporter().importContent(from: try fixture.builtTarget(), to: fixture.output)
        #expect(fixture.leftovers() == [".Levels.import-ba9876543210", "Levels"])
        try fixture.expectSameAsOriginal(fixture.output)
    }

    @Test("a hand-built package (stored members, newc cpio) imports the same")
    func handBuiltPackage() throws {
        let fixture = try ImportFixture()
        var payload = try fixture.payload()
        payload.format = .cpioNewc
        let result = try ContentImporter().importContent(from: try fixture.handBuilt(payload), to: fixture.output)
        #expect(result.fileCount == 7)
        try fixture.expectSameAsOriginal(fixture.output)
    }

    @Test("an existing non-empty --output is refused and kept; an empty one is filled")
    func output() throws {
        let fixture = try ImportFixture()
        let built = try fixture.builtTarget()
        try FileManager.default.createDirectory(at: fixture.output, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: fixture.output.appendingPathComponent("keep.txt"))
        #expect {
            try ContentImporter().importContent(from: built, to: fixture.output)
        } throws: { "\($0)".contains("is not empty") }
        #expect(try String(contentsOf: fixture.output.appendingPathComponent("keep.txt"), encoding: .utf8) == "mine")
        try FileManager.default.removeItem(at: fixture.output.appendingPathComponent("keep.txt"))
        _ = try ContentImporter().importContent(from: built, to: fixture.output)
        #expect(FileManager.default.fileExists(atPath: fixture.output.appendingPathComponent("ContentInfo.plist").path))
        #expect(fixture.leftovers() == ["Levels"])
    }

    @Test("a ContentInfo.plist without ContentVersion is reported as the validator words it; nothing is written")
    func invalidContent() throws {
        let fixture = try ImportFixture()
        let built = try fixture.builtTarget()
        try PackageFixture.binaryContentInfo(["IAPProductIdentifier": "com.example.levels"])
            .write(to: built.appendingPathComponent("ContentInfo.plist"))
        #expect {
            try ContentImporter().importContent(from: built, to: fixture.output)
        } throws: { "\($0)".contains("ContentInfo.plist: key ContentVersion: missing") }
        #expect(fixture.leftovers().isEmpty)
    }
}
