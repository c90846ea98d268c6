@testable import iapcontent
import Testing

/// The live line of `publish` names a content-addressed object by the first 12 digits of its hash.
@Suite("Publish display")
struct PublishDisplayTests {
    @Test func contentAddressedNamesAreAbbreviated() {
        let hash = String(repeating: "ab", count: 32)
        #expect(PublishDisplay.abbreviated("archives/\(hash).tar.zst") == "archives/abababababab…tar.zst")
        #expect(PublishDisplay.abbreviated("manifests/\(hash).manifest") == "manifests/abababababab…manifest")
        #expect(PublishDisplay.abbreviated("catalog.json") == "catalog.json")
        #expect(PublishDisplay.abbreviated("archives/short.tar.zst") == "archives/short.tar.zst")
    }
}
