import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `entitlements sign` on the server and `restore --entitlements` on a new device, in child processes.
@Suite("Content queue: entitlements CLI", .serialized)
struct EntitlementsCLITests {
    @Test("sign, restore on an empty store, revoke, refuse a rollback")
    func signAndRestore() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        let keyFile = fixture.root.appendingPathComponent("sign.key")
        try KeyFile.write(key, to: keyFile)
        let (a, b) = ("com.example.cli.a", "com.example.cli.b")
        let sourceA = try fixture.source(a, version: "1.0")
        try fixture.publish([sourceA, try fixture.source(b, version: "1.0")], signingKey: key)
        let store = fixture.store.root.path
        let output = fixture.nginx.root.appendingPathComponent("entitlements.json").path

        func sign(_ states: [String: String], sequence: UInt64) throws -> (status: Int32, output: String) {
            let input = fixture.root.appendingPathComponent("input-\(sequence).json")
            try JSONSerialization.data(withJSONObject: ["subject": "customer-1", "products": states]).write(to: input)
            return try iapcontent([
                "entitlements", "sign", input.path, "--signing-key", keyFile.path, "--output", output,
                "--sequence", "\(sequence)",
            ])
        }
        func restore() throws -> (status: Int32, output: String) {
            try iapcontent([
                "restore", "--catalog", fixture.catalogURL, "--entitlements", fixture.entitlementsURL,
                "--store", store, "--public-key", key.publicKeyBase64,
            ])
        }

        let signed = try sign([a: "active", b: "active"], sequence: 10)
        #expect(signed.status == 0, "\(signed.output)")
        #expect(signed.output.contains("sequence 10"), "\(signed.output)")
        #expect(FileManager.default.fileExists(atPath: output + ".sig"))

        let restored = try restore()
        #expect(restored.status == 0, "\(restored.output)")
        let installedA = fixture.store.root.appendingPathComponent("content/\(a)")
        #expect(restored.output.contains("\(a): \(installedA.path)"), "\(restored.output)")
        #expect(try diffTrees(sourceA, installedA).status == 0)
        #expect(fixture.store.contentURL(forProductID: b) != nil)

        #expect(try sign([a: "active", b: "revoked"], sequence: 11).status == 0)
        let revoked = try restore()
        #expect(revoked.status == 0, "\(revoked.output)")
        #expect(revoked.output.contains("\(b): removed"), "\(revoked.output)")
        #expect(fixture.store.contentURL(forProductID: b) == nil)
        #expect(fixture.store.contentURL(forProductID: a) != nil)

        #expect(try sign([a: "active", b: "active"], sequence: 9).status == 0)
        let rolledBack = try restore()
        #expect(rolledBack.status == 1, "\(rolledBack.output)")
        #expect(rolledBack.output.contains("rollback"), "\(rolledBack.output)")
        #expect(fixture.store.contentURL(forProductID: b) == nil)
    }
}
