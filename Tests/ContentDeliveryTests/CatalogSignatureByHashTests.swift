import ContentDelivery
import Foundation
import Testing

/// A signed build writes the signature twice: `catalog.json.sig`, and `signatures/<sha256>.sig` named by the
/// catalog's hash, which clients read first; an unsigned build writes neither.
@Suite("Catalog: signature by hash")
struct CatalogSignatureByHashTests {
    @Test func signedBuildsWriteTheSignatureByHashToo() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        let key = SigningKey.generate()
        let first = try fixture.builder(version: 1, key: key).build()
        try fixture.addArchive("q", "1")
        let second = try fixture.builder(version: 2, key: key).build()
        for result in [first, second] {
            let byHash = fixture.output.appendingPathComponent(
                Catalog.signaturePath(catalogSHA256: DeliveryFixture.sha256(result.catalogData)))
            let signature = try JSONDecoder().decode(CatalogSignature.self, from: Data(contentsOf: byHash))
            #expect(signature == result.signature)
        }
        let legacy = try Data(contentsOf: fixture.output.appendingPathComponent(Catalog.signatureFileName))
        let latest = fixture.output.appendingPathComponent(
            Catalog.signaturePath(catalogSHA256: DeliveryFixture.sha256(second.catalogData)))
        #expect(try Data(contentsOf: latest) == legacy)
    }

    @Test func unsignedBuildsWriteNoSignatures() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        _ = try fixture.builder(version: 1).build()
        #expect(!FileManager.default.fileExists(atPath: fixture.output.appendingPathComponent("signatures").path))
    }
}
