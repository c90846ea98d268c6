import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Hostile sources are refused with the entry and the reason, and leave nothing behind: not the output, not
/// the temporary folder beside it, nothing anywhere else.
@Suite("import: hostile sources")
struct ImportHostileTests {
    /// Imports `source` expecting a failure whose text holds every one of `expected`; checks nothing is left.
    private func expectRefused(
        _ fixture: ImportFixture, _ source: URL, maxTotalBytes: Int64 = PackageValidator.defaultMaxTotalBytes,
        _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try ContentImporter(maxTotalBytes: maxTotalBytes).importContent(from: source, to: fixture.output)
            Issue.record("imported", sourceLocation: sourceLocation)
        } catch {
            for text in expected {
                #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
            }
        }
        #expect(fixture.leftovers().isEmpty, "left \(fixture.leftovers())", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending("evil").path), sourceLocation: sourceLocation)
    }

    @Test("a xar member named with '..' or a leading '/'")
    func xarTraversal() throws {
        let fixture = try ImportFixture()
        for name in ["../evil", "Levels.pkg/../../evil", "/evil"] {
            var xar = AppleContentFixture.handBuiltProductArchive(
                payload: try fixture.payload().data(), numberOfFiles: 100, installKBytes: 1000)
            xar.file(name, Data("x".utf8))
            let url = fixture.directory.appending("traversal.pkg")
            try xar.write(to: url)
            let reason = name.hasPrefix("/") ? "absolute path" : "path contains a '..' component"
            expectRefused(fixture, url, ["refused traversal.pkg: \(name): \(reason)"])
        }
    }

    @Test("a xar member that is a link")
    func xarLink() throws {
        let fixture = try ImportFixture()
        var xar = AppleContentFixture.handBuiltProductArchive(payload: try fixture.payload().data(), numberOfFiles: 100, installKBytes: 1000)
        xar.symlink("Levels.pkg/Resources", target: "/etc")
        let url = fixture.directory.appending("link.pkg")
        try xar.write(to: url)
        expectRefused(fixture, url, ["refused link.pkg: Levels.pkg/Resources: is a symbolic link to '/etc'; links are never installed"])
    }

    @Test("payload members with '..', links, hard links and devices: each named, all listed")
    func payloadEntries() throws {
        let fixture = try ImportFixture()
        let payload = try fixture.payload { payload in
            payload.file("./../evil", text: "outside")
            payload.file("./Contents/../../evil", text: "outside")
            payload.symlink("./Contents/esc", target: "/etc")
            // cpio has no link entries: a second name with the first's inode and a link count above one is a hard link.
            for name in ["./Contents/first", "./Contents/hard"] {
                var entry = TestArchiveBuilder.Entry(type: 0o100000, pathBytes: Array(name.utf8), data: Data("same".utf8))
                entry.inode = 777
                entry.links = 2
                payload.append(entry)
            }
            payload.append(TestArchiveBuilder.Entry(type: 0o020000, pathBytes: Array("./Contents/null".utf8), rdev: 0x0103))
            payload.append(TestArchiveBuilder.Entry(type: 0o010000, pathBytes: Array("./Contents/fifo".utf8)))
        }
        let display = "Hostile.pkg: Levels.pkg/Payload: "
        expectRefused(fixture, try fixture.handBuilt(payload), [
            "refused \(display)./../evil: path contains a '..' component",
            "refused \(display)./Contents/../../evil: path contains a '..' component",
            "refused \(display)./Contents/esc: is a symbolic link to '/etc'; links are never installed",
            "refused \(display)./Contents/hard: is a hard link to './Contents/first'; links are never installed",
            "refused \(display)./Contents/null: is a character device; only regular files and directories are installed",
            "refused \(display)./Contents/fifo: is a FIFO",
        ])
    }

    @Test("a payload bomb: a file of zeros past the size limit is refused before it is written out")
    func bomb() throws {
        let fixture = try ImportFixture()
        let payload = try fixture.payload { payload in
            payload.append(TestArchiveBuilder.Entry(type: 0o100000, pathBytes: Array("./Contents/zeros.bin".utf8), zeroBytes: 64 << 20))
        }
        let url = try fixture.handBuilt(payload)
        #expect(try FileHandle(forReadingFrom: url).readToEnd()!.count < 1 << 20)
        expectRefused(fixture, url, maxTotalBytes: 16 << 20, ["Contents/zeros.bin: expands to more than 16777216 bytes", "decompression bomb"])
    }

    @Test("a payload larger than its PackageInfo declares")
    func largerThanDeclared() throws {
        let fixture = try ImportFixture()
        let payload = try fixture.payload()
        expectRefused(fixture, try fixture.handBuilt(payload, installKBytes: 64), [
            "Levels.pkg/Payload: ./Contents/art/blob.bin: the payload is larger than the 64 KiB its PackageInfo declares (installKBytes)",
        ])
        expectRefused(fixture, try fixture.handBuilt(payload, numberOfFiles: 4), [
            "the payload holds more than the 4 entries its PackageInfo declares (numberOfFiles)",
        ])
    }

    @Test("a PackageInfo that declares no payload size is refused before the payload is read")
    func undeclaredPayload() throws {
        let fixture = try ImportFixture()
        let payload = try fixture.payload().data()
        var xar = XarBuilder()
        for member in AppleContentFixture.productMembers(payload: payload, component: "Levels.pkg", numberOfFiles: 1, installKBytes: 1) {
            guard let data = member.data else { xar.directory(member.name); continue }
            if member.name.hasSuffix("/PackageInfo") {
                xar.file(member.name, Data(#"<?xml version="1.0" encoding="utf-8"?><pkg-info format-version="2" identifier="Levels" version="0"/>"#.utf8))
            } else {
                xar.file(member.name, data)
            }
        }
        let url = fixture.directory.appending("undeclared.pkg")
        try xar.write(to: url)
        expectRefused(fixture, url, [
            "refused undeclared.pkg: Levels.pkg/PackageInfo: declares no payload size", "pkgutil --expand-full",
        ])
    }

    @Test("a payload member longer than the xar's table of contents declares")
    func xarSizeLie() throws {
        let fixture = try ImportFixture()
        let payload = try fixture.payload().data()
        let url = fixture.directory.appending("lie.pkg")
        try AppleContentFixture.handBuiltProductArchive(
            payload: payload, numberOfFiles: 100, installKBytes: 1000, payloadDeclaredSize: payload.count / 2
        ).write(to: url)
        expectRefused(fixture, url, ["lie.pkg: Levels.pkg/Payload", "the package is damaged or hostile"])
    }

    @Test("a pbzx payload is refused with what to do")
    func pbzx() throws {
        let fixture = try ImportFixture()
        let pbzx = Data("pbzx".utf8) + Data([0, 0, 0, 0, 0, 0x10, 0, 0]) + Data(count: 64)
        let url = fixture.directory.appending("pbzx.pkg")
        try AppleContentFixture.handBuiltProductArchive(payload: pbzx, numberOfFiles: 100, installKBytes: 1000).write(to: url)
        expectRefused(fixture, url, ["pbzx-compressed payload", "pkgutil --expand-full"])
    }

    @Test("a built folder holding a link, a FIFO, or files beside Contents/")
    func builtTarget() throws {
        let fixture = try ImportFixture()
        let built = try fixture.builtTarget()
        try FileManager.default.createSymbolicLink(atPath: built.appendingPathComponent("Contents/esc").path, withDestinationPath: "/etc")
        #expect(mkfifo(built.appendingPathComponent("Contents/pipe").path, 0o644) == 0)
        try Data("x".utf8).write(to: built.appendingPathComponent("notes.txt"))
        expectRefused(fixture, built, [
            "refused \(built.path)/Contents/esc: is a symbolic link to '/etc'; links are never installed",
            "refused \(built.path)/Contents/pipe: is a FIFO",
            "refused \(built.path)/notes.txt: is outside the hosted-content layout",
        ])
    }

    @Test("a project whose files lie outside it, in build locations, behind a link, or need compiling")
    func xcodeProjectOutside() throws {
        let fixture = try ImportFixture()
        try Data("secret".utf8).write(to: fixture.directory.appending("outside.txt"))
        let project = try fixture.xcodeProject(extra: [
            .init(path: "../../outside.txt"),
            .init(path: fixture.directory.appending("outside.txt").path, sourceTree: "<absolute>"),
            .init(path: "libz.tbd", sourceTree: "SDKROOT"),
            .init(path: "linked/inside.txt"),
            .init(path: "Menu.xib"),
        ])
        try FileManager.default.createSymbolicLink(
            atPath: project.root.appendingPathComponent("Levels/linked").path, withDestinationPath: fixture.directory.path)
        try Data("<xib/>".utf8).write(to: project.root.appendingPathComponent("Levels/Menu.xib"))
        try Data("x".utf8).write(to: fixture.directory.appending("inside.txt"))
        let pbxproj = "Levels.xcodeproj/project.pbxproj: "
        expectRefused(fixture, project.root, [
            "refused \(pbxproj)../../outside.txt: points outside the project folder",
            "refused \(pbxproj)\(fixture.directory.appending("outside.txt").path): points outside the project folder",
            "refused \(pbxproj)libz.tbd: lies in 'SDKROOT', outside the project folder",
            "refused \(pbxproj)linked/inside.txt: its folder",
            "reached through a symbolic link",
            "refused \(pbxproj)Menu.xib: Xcode compiles .xib files",
        ])
    }

    @Test("a project whose ContentInfo.plist (INFOPLIST_FILE) lies outside it, by a relative or an absolute path")
    func infoPlistOutside() throws {
        let fixture = try ImportFixture()
        let outside = fixture.directory.appending("ContentInfo.plist")
        try FileManager.default.copyItem(at: fixture.original.appendingPathComponent("ContentInfo.plist"), to: outside)
        for setting in ["../ContentInfo.plist", outside.path] {
            try? FileManager.default.removeItem(at: fixture.directory.appending("project"))
            let project = try fixture.xcodeProject(infoPlistFile: setting)
            expectRefused(fixture, project.root, [
                "Levels.xcodeproj/project.pbxproj: INFOPLIST_FILE \(setting)", "points outside the project folder",
            ])
        }
    }
}
