import ContentDelivery
import ContentPackaging
import Crypto
import Foundation
import Testing

@Suite struct CatalogSigningTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A signed catalog built by the real builder: (catalog bytes, signature bytes).
    func signedCatalog(
        key: SigningKey, version: UInt64 = 10, expiresIn: TimeInterval? = 3600
    ) throws -> (Data, Data) {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("com.example.levels", "1.2")
        let result = try fixture.builder(version: version, key: key, expiresIn: expiresIn, now: now).build()
        let catalog = try Data(contentsOf: fixture.output.appendingPathComponent("catalog.json"))
        let signature = try Data(contentsOf: fixture.output.appendingPathComponent("catalog.json.sig"))
        #expect(catalog == result.catalogData)
        #expect(try result.signature?.encoded() == signature)
        return (catalog, signature)
    }

    @Test func keyIDIsSHA256PrefixOfPublicKey() {
        let key = SigningKey.generate()
        let expected = SHA256.hash(data: key.publicKeyRaw).map { String(format: "%02x", $0) }.joined().prefix(16)
        #expect(key.keyID == String(expected))
        #expect(key.keyID.count == 16)
        #expect(Data(base64Encoded: key.publicKeyBase64)?.count == 32)
    }

    @Test func validSignatureVerifies() throws {
        let key = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: key)
        let verified = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
            .verify(catalogData: catalog, signatureData: signature, highestSeenVersion: 10, now: now)
        #expect(verified.catalogVersion == 10)
        #expect(verified.expires == now.addingTimeInterval(3600))
        #expect(verified.product("com.example.levels") != nil)
        let record = try JSONDecoder().decode(CatalogSignature.self, from: signature)
        #expect(record.keyID == key.keyID)
        #expect(record.algorithm == "ed25519")
    }

    @Test func tamperedByteIsBadSignature() throws {
        let key = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: key)
        let verifier = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
        // Flip one bit in the middle of the catalog.
        var tampered = catalog
        tampered[catalog.startIndex + catalog.count / 2] ^= 0x01
        #expect(throws: CatalogVerificationError.badSignature(key.keyID)) {
            try verifier.verify(catalogData: tampered, signatureData: signature, now: now)
        }
        // Even one appended byte (re-serialisation, trailing whitespace) breaks it: exact bytes only.
        #expect(throws: CatalogVerificationError.badSignature(key.keyID)) {
            try verifier.verify(catalogData: catalog + Data(" ".utf8), signatureData: signature, now: now)
        }
    }

    @Test func signatureByUnpinnedKeyIsUnknownKey() throws {
        let pinned = SigningKey.generate()
        let attacker = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: attacker)
        #expect(throws: CatalogVerificationError.unknownKey(attacker.keyID)) {
            try CatalogVerifier(pinnedPublicKeys: [pinned.publicKeyBase64])
                .verify(catalogData: catalog, signatureData: signature, now: now)
        }
    }

    @Test func wrongKeyClaimingPinnedKeyIDIsBadSignature() throws {
        let pinned = SigningKey.generate()
        let attacker = SigningKey.generate()
        let (catalog, _) = try signedCatalog(key: pinned)
        let forged = CatalogSignature(
            keyID: pinned.keyID, signature: try attacker.signature(for: catalog).base64EncodedString())
        #expect(throws: CatalogVerificationError.badSignature(pinned.keyID)) {
            try CatalogVerifier(pinnedPublicKeys: [pinned.publicKeyBase64])
                .verify(catalogData: catalog, signatureData: try forged.encoded(), now: now)
        }
    }

    @Test func expiredCatalogIsRefused() throws {
        let key = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: key, expiresIn: 60)
        let verifier = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
        _ = try verifier.verify(catalogData: catalog, signatureData: signature, now: now.addingTimeInterval(59))
        #expect(throws: CatalogVerificationError.expired(at: now.addingTimeInterval(60))) {
            try verifier.verify(catalogData: catalog, signatureData: signature, now: now.addingTimeInterval(61))
        }
    }

    @Test func rolledBackVersionIsRefused() throws {
        let key = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: key, version: 10)
        let verifier = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
        #expect(throws: CatalogVerificationError.rollback(seen: 11, got: 10)) {
            try verifier.verify(catalogData: catalog, signatureData: signature, highestSeenVersion: 11, now: now)
        }
        // The same version again is fine (re-fetch).
        _ = try verifier.verify(catalogData: catalog, signatureData: signature, highestSeenVersion: 10, now: now)
    }

    @Test func downgradedProductIsRefused() throws {
        #expect(throws: CatalogVerificationError.downgrade(
            installed: ContentVersion("1.10")!, offered: ContentVersion("1.9")!))
        {
            try CatalogVerifier.checkNoDowngrade(installed: ContentVersion("1.10")!, offered: ContentVersion("1.9")!)
        }
        try CatalogVerifier.checkNoDowngrade(installed: ContentVersion("1.9")!, offered: ContentVersion("1.10")!)
        try CatalogVerifier.checkNoDowngrade(installed: ContentVersion("2")!, offered: ContentVersion("2.0")!)
    }

    @Test func truncatedSignatureIsMalformed() throws {
        let key = SigningKey.generate()
        let (catalog, signature) = try signedCatalog(key: key)
        let verifier = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
        // Truncated file (cut mid-JSON).
        #expect(throws: CatalogVerificationError.self) {
            try verifier.verify(catalogData: catalog, signatureData: signature.prefix(signature.count / 2), now: now)
        }
        do {
            _ = try verifier.verify(catalogData: catalog, signatureData: signature.prefix(signature.count / 2), now: now)
        } catch {
            guard case .malformedSignature = error else { Issue.record("got \(error)"); return }
        }
        // Valid JSON whose signature value was truncated to fewer than 64 bytes.
        var record = try JSONDecoder().decode(CatalogSignature.self, from: signature)
        let raw = try #require(Data(base64Encoded: record.signature))
        record.signature = raw.prefix(40).base64EncodedString()
        let truncated = try record.encoded()
        do {
            _ = try verifier.verify(catalogData: catalog, signatureData: truncated, now: now)
            Issue.record("truncated signature accepted")
        } catch {
            guard case .malformedSignature = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func missingSignatureIsRefused() throws {
        let key = SigningKey.generate()
        let (catalog, _) = try signedCatalog(key: key)
        let verifier = try CatalogVerifier(pinnedPublicKeys: [key.publicKeyBase64])
        #expect(throws: CatalogVerificationError.missingSignature) {
            try verifier.verify(catalogData: catalog, signatureData: nil, now: now)
        }
        // Unsigned mode still enforces rollback.
        #expect(throws: CatalogVerificationError.rollback(seen: 99, got: 10)) {
            try CatalogVerifier.allowingUnsigned.verify(
                catalogData: catalog, signatureData: nil, highestSeenVersion: 99, now: now)
        }
    }

    @Test func severalPinnedKeysAllowRotation() throws {
        let old = SigningKey.generate()
        let new = SigningKey.generate()
        let verifier = try CatalogVerifier(pinnedPublicKeys: [old.publicKeyBase64, new.publicKeyBase64])
        let (oldCatalog, oldSignature) = try signedCatalog(key: old, version: 10)
        let (newCatalog, newSignature) = try signedCatalog(key: new, version: 11)
        #expect(try verifier.verify(catalogData: oldCatalog, signatureData: oldSignature, now: now).catalogVersion == 10)
        #expect(try verifier.verify(catalogData: newCatalog, signatureData: newSignature, now: now).catalogVersion == 11)
        // After the old key is dropped from the app, its signatures are unknown.
        #expect(throws: CatalogVerificationError.unknownKey(old.keyID)) {
            try CatalogVerifier(pinnedPublicKeys: [new.publicKeyBase64])
                .verify(catalogData: oldCatalog, signatureData: oldSignature, now: now)
        }
    }

    @Test func malformedCatalogAndPinnedKeyAreNamed() throws {
        #expect(throws: CatalogVerificationError.invalidPinnedKey("not-a-key")) {
            try CatalogVerifier(pinnedPublicKeys: ["not-a-key"])
        }
        do {
            _ = try CatalogVerifier.allowingUnsigned.verify(
                catalogData: Data(#"{"schema":1,"catalogVersion":1,"baseURLs":[]}"#.utf8), signatureData: nil)
            Issue.record("accepted a catalog without products")
        } catch {
            guard case .malformedCatalog(let detail) = error else { Issue.record("got \(error)"); return }
            #expect(detail.contains("products"))
        }
    }

    @Test func keyFileRoundTripsWithPrivateMode() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let url = fixture.root.appendingPathComponent("signing.key")
        let key = SigningKey.generate()
        try KeyFile.write(key, to: url)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let loaded = try KeyFile.read(from: url)
        #expect(loaded.keyID == key.keyID)
        #expect(loaded.rawRepresentation == key.rawRepresentation)
        #expect(throws: KeyFileError.alreadyExists(path: url.path)) { try KeyFile.write(SigningKey.generate(), to: url) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        #expect(throws: KeyFileError.tooOpen(path: url.path, mode: 0o644)) { try KeyFile.read(from: url) }
    }
}
