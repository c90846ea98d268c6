import Foundation
import Glibc
import Testing
import TestSupport

/// One way a folder can be invalid, and what the message must name.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var extraArguments: [String] = []
    var expected: [String]
    var damage: @Sendable (URL) throws -> Void

    var testDescription: String { name }
}

let invalidCases: [InvalidCase] = [
    InvalidCase(name: "missing plist", expected: ["ContentInfo.plist: missing"]) { root in
        try FileManager.default.removeItem(at: root.appendingPathComponent("ContentInfo.plist"))
    },
    InvalidCase(name: "malformed plist", expected: ["ContentInfo.plist: is not a valid property list"]) { root in
        try Data("<plist><dict><key>oops".utf8).write(to: root.appendingPathComponent("ContentInfo.plist"))
    },
    InvalidCase(name: "missing ContentVersion", expected: ["ContentInfo.plist: key ContentVersion: missing"]) { root in
        try FolderDamage.contentInfo(root, ["IAPProductIdentifier": "com.example.test"])
    },
    InvalidCase(name: "IAPContentVersion for ContentVersion", expected: [
        "ContentInfo.plist: key ContentVersion: missing; found IAPContentVersion, but the key is ContentVersion",
    ]) { root in
        try FolderDamage.contentInfo(root, ["IAPProductIdentifier": "com.example.test", "IAPContentVersion": "1.0"])
    },
    InvalidCase(name: "missing IAPProductIdentifier", expected: ["ContentInfo.plist: key IAPProductIdentifier: missing"]) {
        root in try FolderDamage.contentInfo(root, ["ContentVersion": "1.0"])
    },
    InvalidCase(name: "ContentVersion not a string", expected: ["ContentInfo.plist: key ContentVersion: must be a string"]) {
        root in
        let plist: [String: Any] = ["IAPProductIdentifier": "com.example.test", "ContentVersion": 3]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: root.appendingPathComponent("ContentInfo.plist"))
    },
    InvalidCase(name: "version 1..2", expected: ["key ContentVersion: '1..2' is not a version"], damage: FolderDamage.version("1..2")),
    InvalidCase(name: "version v1", expected: ["key ContentVersion: 'v1' is not a version"], damage: FolderDamage.version("v1")),
    InvalidCase(name: "version -1", expected: ["key ContentVersion: '-1' is not a version"], damage: FolderDamage.version("-1")),
    InvalidCase(name: "empty version", expected: ["key ContentVersion: '' is not a version"], damage: FolderDamage.version("")),
    InvalidCase(name: "empty id", expected: ["key IAPProductIdentifier: is empty"], damage: FolderDamage.productID("")),
    InvalidCase(name: "id with space", expected: ["key IAPProductIdentifier: 'com.example test'"],
                damage: FolderDamage.productID("com.example test")),
    InvalidCase(name: "id leading dot", expected: ["key IAPProductIdentifier: '.com.example' must not start or end"],
                damage: FolderDamage.productID(".com.example")),
    InvalidCase(name: "id trailing dot", expected: ["key IAPProductIdentifier: 'com.example.' must not start or end"],
                damage: FolderDamage.productID("com.example.")),
    InvalidCase(name: "id too long", expected: ["key IAPProductIdentifier: is 256 characters"],
                damage: FolderDamage.productID(String(repeating: "a", count: 256))),
    InvalidCase(name: "missing Contents", expected: ["Contents: missing"]) { root in
        try FileManager.default.removeItem(at: root.appendingPathComponent("Contents"))
    },
    InvalidCase(name: "Contents is a file", expected: ["Contents: is a regular file"]) { root in
        try FileManager.default.removeItem(at: root.appendingPathComponent("Contents"))
        try Data("x".utf8).write(to: root.appendingPathComponent("Contents"))
    },
    InvalidCase(name: "extra root entry", expected: ["notes.txt: is not allowed at the package root"]) { root in
        try Data("x".utf8).write(to: root.appendingPathComponent("notes.txt"))
    },
    InvalidCase(name: "symlink", expected: ["Contents/link: is a symbolic link"]) { root in
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("Contents/link").path, withDestinationPath: "/etc/passwd")
    },
    InvalidCase(name: "FIFO", expected: ["Contents/pipe: is a FIFO"]) { root in
        #expect(mkfifo(root.appendingPathComponent("Contents/pipe").path, 0o644) == 0)
    },
    InvalidCase(name: "socket", expected: ["Contents/s.sock: is a socket"]) { root in
        try FolderDamage.socketFile(at: root.appendingPathComponent("Contents/s.sock").path)
    },
    InvalidCase(name: "ELF", expected: ["Contents/lib.so: is executable code (ELF"]) { root in
        try FolderDamage.write(root, "Contents/lib.so", [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 56))
    },
    InvalidCase(name: "Mach-O thin 64 little-endian", expected: ["Contents/tool.dat: is executable code (Mach-O"]) { root in
        try FolderDamage.write(root, "Contents/tool.dat", [0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1])
    },
    InvalidCase(name: "Mach-O thin 32 big-endian", expected: ["Contents/old.dat: is executable code (Mach-O"]) { root in
        try FolderDamage.write(root, "Contents/old.dat", [0xFE, 0xED, 0xFA, 0xCE, 0, 0, 0, 18])
    },
    InvalidCase(name: "Mach-O fat", expected: ["Contents/universal: is executable code (Mach-O universal"]) { root in
        try FolderDamage.write(root, "Contents/universal", [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 40))
    },
    InvalidCase(name: "PE", expected: ["Contents/setup.bin: is executable code (Windows PE"]) { root in
        try FolderDamage.write(root, "Contents/setup.bin", FolderDamage.peBytes)
    },
    InvalidCase(name: "script", expected: ["Contents/run.txt: is executable code (script"]) { root in
        try FolderDamage.write(root, "Contents/run.txt", Array("#!/bin/sh\necho hi\n".utf8))
    },
    InvalidCase(name: "backslash name", expected: ["Contents/a\\b.txt: name contains '\\'"]) { root in
        try FolderDamage.write(root, "Contents/a\\b.txt", [1])
    },
    InvalidCase(name: "control character name", expected: ["Contents/a\u{01}b.txt: name contains a control character"]) {
        root in try FolderDamage.write(root, "Contents/a\u{01}b.txt", [1])
    },
    InvalidCase(name: "invalid UTF-8 name", expected: ["Contents/bad\u{FFFD}.txt: name is not valid UTF-8"]) { root in
        try FolderDamage.rawNamedFile(root, Array("bad".utf8) + [0xFF] + Array(".txt".utf8))
    },
    InvalidCase(name: "path over 1024 bytes", expected: ["bytes; the limit is 1024"]) { root in
        let deep = (0..<5).map { _ in String(repeating: "d", count: 250) }.joined(separator: "/")
        try FolderDamage.write(root, "Contents/\(deep)/file.txt", [1])
    },
    InvalidCase(name: "case collision", expected: ["Contents/Readme.txt: collides with 'Contents/README.txt'",
                                                   "Contents/README.txt: collides with 'Contents/Readme.txt'"]) { root in
        try FolderDamage.write(root, "Contents/README.txt", [1])
        try FolderDamage.write(root, "Contents/Readme.txt", [2])
    },
    InvalidCase(name: "NFC/NFD collision", expected: ["collides with 'Contents/caf"]) { root in
        try FolderDamage.write(root, "Contents/caf\u{E9}.txt", [1])
        try FolderDamage.rawNamedFile(root, Array("cafe".utf8) + [0xCC, 0x81] + Array(".txt".utf8))
    },
    InvalidCase(name: "over --max-size", extraArguments: ["--max-size", "5"], expected: [".: total size"]) { root in
        try FolderDamage.write(root, "Contents/big.bin", [UInt8](repeating: 7, count: 100))
    },
]

@Suite("iapcontent validate")
struct ValidateCommandTests {
    @Test("an invalid folder exits 1 and names the offending path or key", arguments: invalidCases)
    func invalidFolder(_ testCase: InvalidCase) throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try testCase.damage(root)
        let result = try CommandRunner.iapcontent(["validate", root.path] + testCase.extraArguments)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        for expected in testCase.expected {
            #expect(result.stderrLines.contains { $0.utf8.contains(expected.utf8) },
                    "expected a line containing \(expected.debugDescription); got \(result.stderr.debugDescription)")
        }
        #expect(result.stdout.isEmpty)
    }

    @Test("the NFC/NFD collision names both spellings")
    func normalizationCollisionNamesBoth() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try FolderDamage.write(root, "Contents/caf\u{E9}.txt", [1])
        try FolderDamage.rawNamedFile(root, Array("cafe".utf8) + [0xCC, 0x81] + Array(".txt".utf8))
        let result = try CommandRunner.iapcontent(["validate", root.path])
        let lines = result.stderrLines.filter { $0.utf8.contains("collides with".utf8) }
        #expect(lines.count == 2)
        #expect(lines.contains { $0.utf8.starts(with: "Contents/caf\u{E9}.txt:".utf8) })
        #expect(lines.contains { $0.utf8.starts(with: "Contents/cafe\u{301}.txt:".utf8) })
    }

    @Test("a Java class file (also CAFEBABE) is data, not a fat Mach-O")
    func javaClassIsAccepted() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try FolderDamage.write(root, "Contents/Main.class", [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0x34, 0, 10])
        let result = try CommandRunner.iapcontent(["validate", root.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
    }

    @Test("every problem is reported in one run, one line each, sorted by path")
    func allProblemsInOneRun() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try Data("x".utf8).write(to: root.appendingPathComponent("extra.txt"))
        try FolderDamage.write(root, "Contents/run.sh", Array("#!/bin/sh\n".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("Contents/alias").path, withDestinationPath: "run.sh")
        let result = try CommandRunner.iapcontent(["validate", root.path])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 3, "\(result.stderr)")
        #expect(result.stderrLines.map { String($0.prefix(while: { $0 != ":" })) }
            == ["Contents/alias", "Contents/run.sh", "extra.txt"])
    }

    @Test("--json prints the problems as JSON on stdout")
    func jsonOutput() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try FolderDamage.version("v2")(root)
        try Data("x".utf8).write(to: root.appendingPathComponent("extra.txt"))
        let result = try CommandRunner.iapcontent(["validate", "--json", root.path])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["valid"] as? Bool == false)
        let problems = object?["problems"] as? [[String: String]] ?? []
        #expect(problems.map { $0["path"] } == ["ContentInfo.plist", "extra.txt"])
        #expect(problems.first?["message"]?.contains("'v2' is not a version") == true)
    }

    @Test("--json on a valid folder reports product, version and counts")
    func jsonValid() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.json", version: "2.5",
            files: ["Contents/a.txt": Data("abc".utf8), "Contents/sub/b.txt": Data("de".utf8)])
        let result = try CommandRunner.iapcontent(["validate", "--json", root.path])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["valid"] as? Bool == true)
        #expect(object?["productID"] as? String == "com.example.json")
        #expect(object?["contentVersion"] as? String == "2.5")
        #expect(object?["fileCount"] as? Int == 3)
    }

    @Test("an Xcode-shaped XML plist with a Folder key is accepted, with a one-line summary")
    func xcodePlistAccepted() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.xml", version: "1.10",
            files: ["Contents/a.txt": Data("hello".utf8)])
        let plistSize = try Data(contentsOf: root.appendingPathComponent("ContentInfo.plist")).count
        let result = try CommandRunner.iapcontent(["validate", root.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == ["com.example.xml 1.10: 2 files, \(plistSize + 5) bytes"])
    }

    @Test("a binary plist is accepted")
    func binaryPlistAccepted() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try FolderDamage.contentInfo(root, ["IAPProductIdentifier": "com.example.bin", "ContentVersion": "7"])
        let result = try CommandRunner.iapcontent(["validate", root.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("com.example.bin 7: "))
    }

    @Test("OS litter is skipped with a note, not a failure")
    func litterSkipped() throws {
        let directory = try TemporaryDirectory("validate")
        let root = try PackageFixture.make(at: directory.appending("pkg"))
        try Data("x".utf8).write(to: root.appendingPathComponent(".DS_Store"))
        try FolderDamage.write(root, "Contents/._hello.txt", [0])
        let result = try CommandRunner.iapcontent(["validate", root.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("note: skipped OS litter .DS_Store"))
        #expect(result.stderr.contains("note: skipped OS litter Contents/._hello.txt"))
    }

    @Test("usage errors exit 2", arguments: [[String](["validate"]), ["validate", "a", "--max-size", "0"], ["validate", "--bogus", "a"]])
    func usageError(_ arguments: [String]) throws {
        let result = try CommandRunner.iapcontent(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test("--help names the keys the validator checks, ContentVersion as Xcode writes it")
    func helpNamesTheCheckedKeys() throws {
        let help = try CommandRunner.iapcontent(["validate", "--help"])
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(text.contains("IAPProductIdentifier") && text.contains("ContentVersion"), "\(help.stdout)")
        #expect(!text.contains("(IAPProductIdentifier, IAPContentVersion)"), "\(help.stdout)")
    }
}
