import ContentPackaging
import Foundation
import Testing
import TestSupport

@Suite("ContentInfo")
struct ContentInfoTests {
    @Test("reads an Xcode-shaped XML plist and keeps the Folder key")
    func xml() throws {
        let info = try ContentInfo(data: PackageFixture.xmlContentInfo(productID: "com.example.a", version: "1.2.3"))
        #expect(info.productID == "com.example.a")
        #expect(info.contentVersion == ContentVersion("1.2.3"))
        #expect(info.otherKeys["Folder"] == "Contents")
    }

    @Test("reads a binary plist")
    func binary() throws {
        let info = try ContentInfo(data: PackageFixture.binaryContentInfo(
            ["IAPProductIdentifier": "com.example.b", "ContentVersion": "4"]))
        #expect(info.productID == "com.example.b")
        #expect(info.contentVersion.description == "4")
    }

    @Test("errors name the key", arguments: [
        (["ContentVersion": "1"], "ContentInfo.plist: key IAPProductIdentifier: missing"),
        (["IAPProductIdentifier": "a.b"], "ContentInfo.plist: key ContentVersion: missing"),
        (["IAPProductIdentifier": "a b", "ContentVersion": "1"], "ContentInfo.plist: key IAPProductIdentifier: 'a b' has characters"),
        (["IAPProductIdentifier": "a.b", "ContentVersion": "1..2"], "ContentInfo.plist: key ContentVersion: '1..2' is not a version"),
    ] as [([String: String?], String)])
    func namesKey(_ values: [String: String?], _ expected: String) {
        #expect(throws: ContentInfoError.self) { try ContentInfo(data: PackageFixture.binaryContentInfo(values)) }
        do {
            _ = try ContentInfo(data: PackageFixture.binaryContentInfo(values))
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test("both keys' problems are listed together")
    func allProblems() {
        let problems = ContentInfo.problems(in: PackageFixture.binaryContentInfo(["IAPProductIdentifier": ".x", "ContentVersion": "v1"]))
        #expect(problems.map(\.key) == ["IAPProductIdentifier", "ContentVersion"])
    }

    @Test("product identifier rules", arguments: [
        ("com.example.ok", true), ("a", true), ("A-b_c.9", true), ("", false), (".a", false), ("a.", false),
        ("a/b", false), ("é", false), (String(repeating: "z", count: 255), true), (String(repeating: "z", count: 256), false),
    ])
    func productIDs(_ id: String, _ valid: Bool) {
        #expect((ContentInfo.productIDProblem(id) == nil) == valid)
    }
}
