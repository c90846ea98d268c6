import ContentDelivery
import Foundation
import Testing

/// The signed entitlements document: written with its `.sig`, then each refusal with its own error.
@Suite struct EntitlementsSigningTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let name = "https://api.example.com/entitlements/customer-1.json"

    /// A document signed by `key`, written and read back as a client fetches it: (bytes, signature bytes).
    func signed(key: SigningKey, sequence: UInt64 = 5, expires: Date? = nil) throws -> (Data, Data) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-ent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("customer-1.json")
        let document = Entitlements(
            subject: "customer-1", issuedAt: now, sequence: sequence, expires: expires,
            products: ["com.example.a": .active, "com.example.b": .revoked, "com.example.c": .expired])
        try document.write(to: file, signingKey: key)
        return (try Data(contentsOf: file), try Data(contentsOf: folder.appendingPathComponent("customer-1.json.sig")))
    }

    @Test func validDocumentVerifies() throws {
        let key = SigningKey.generate()
        let (data, signature) = try signed(key: key, expires: now.addingTimeInterval(60))
        let verified = try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64])
            .verify(data, signatureData: signature, document: name, highestSeenSequence: { _ in 5 }, now: now)
        #expect(verified.subject == "customer-1")
        #expect(verified.sequence == 5)
        #expect(verified.issuedAt == now)
        #expect(verified.activeProductIDs == ["com.example.a"])
        #expect(verified.withdrawnProductIDs == ["com.example.b", "com.example.c"])
    }

    @Test func tamperedDocumentIsRefused() throws {
        let key = SigningKey.generate()
        let (data, signature) = try signed(key: key)
        let tampered = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "revoked", with: "active").utf8)
        #expect(throws: EntitlementsVerificationError.badSignature(document: name, keyID: key.keyID)) {
            try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64])
                .verify(tampered, signatureData: signature, document: name, now: now)
        }
        let message = EntitlementsVerificationError.badSignature(document: name, keyID: key.keyID).description
        #expect(message.contains(name) && message.contains("altered"))
    }

    @Test func unsignedDocumentIsRefusedWhenKeysArePinned() throws {
        let key = SigningKey.generate()
        let (data, _) = try signed(key: key)
        #expect(throws: EntitlementsVerificationError.missingSignature(document: name)) {
            try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64]).verify(data, signatureData: nil, document: name, now: now)
        }
        #expect(EntitlementsVerificationError.missingSignature(document: name).description.contains("\(name).sig is missing"))
        // Without pinned keys (development) the document is accepted unsigned.
        #expect(try EntitlementsVerifier.allowingUnsigned.verify(data, signatureData: nil, document: name, now: now).sequence == 5)
    }

    @Test func otherKeyIsRefused() throws {
        let signer = SigningKey.generate()
        let pinned = SigningKey.generate()
        let (data, signature) = try signed(key: signer)
        #expect(throws: EntitlementsVerificationError.unknownKey(document: name, keyID: signer.keyID)) {
            try EntitlementsVerifier(pinnedPublicKeys: [pinned.publicKeyBase64]).verify(data, signatureData: signature, document: name, now: now)
        }
    }

    @Test func expiredDocumentIsRefused() throws {
        let key = SigningKey.generate()
        let expires = now.addingTimeInterval(-1)
        let (data, signature) = try signed(key: key, expires: expires)
        #expect(throws: EntitlementsVerificationError.expired(document: name, at: expires)) {
            try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64]).verify(data, signatureData: signature, document: name, now: now)
        }
        #expect(EntitlementsVerificationError.expired(document: name, at: expires).description.contains("expired at"))
    }

    @Test func rolledBackDocumentIsRefused() throws {
        let key = SigningKey.generate()
        let (data, signature) = try signed(key: key, sequence: 4)
        let error = EntitlementsVerificationError.rollback(document: name, subject: "customer-1", seen: 5, got: 4)
        #expect(throws: error) {
            try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64])
                .verify(data, signatureData: signature, document: name, highestSeenSequence: { $0 == "customer-1" ? 5 : nil }, now: now)
        }
        #expect(error.description.contains("rollback") && error.description.contains(name))
    }

    @Test func anotherSubjectsDocumentIsRefused() throws {
        let key = SigningKey.generate()
        let (data, signature) = try signed(key: key)
        let error = EntitlementsVerificationError.wrongSubject(document: name, expected: "customer-2", got: "customer-1")
        #expect(throws: error) {
            try EntitlementsVerifier(pinnedPublicKeys: [key.publicKeyBase64])
                .verify(data, signatureData: signature, document: name, subject: "customer-2", now: now)
        }
        #expect(error.description.contains("not of customer-2"))
    }

    @Test func malformedPinnedKeyIsNamed() {
        #expect(throws: EntitlementsVerificationError.invalidPinnedKey("nope")) {
            try EntitlementsVerifier(pinnedPublicKeys: ["nope"])
        }
    }
}
