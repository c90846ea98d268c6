import ContentDelivery
import Foundation
import Testing

/// ``CatalogDate`` writes what `JSONEncoder`'s `.iso8601` wrote (catalog bytes must not change) and reads what
/// `.iso8601` read, without Foundation's ICU-backed formatting.
@Suite struct CatalogDateTests {
    @Test(arguments: [0.0, 1_800_000_000, 1_800_000_000.999, 951_782_400, 4_102_444_799, 86_399.5])
    func writesTheSameTextAsFoundation(_ seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let foundation = String(decoding: try encoder.encode([date]), as: UTF8.self)
        #expect(foundation == "[\"\(CatalogDate.string(from: date))\"]")
        #expect(CatalogDate.date(from: CatalogDate.string(from: date)) == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test func readsOffsetsAndFractions() {
        let noon = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        #expect(CatalogDate.string(from: noon) == "2027-01-15T08:00:00Z")
        #expect(CatalogDate.date(from: "2027-01-15T08:00:00Z") == noon)
        #expect(CatalogDate.date(from: "2027-01-15T10:30:00+02:30") == noon)
        #expect(CatalogDate.date(from: "2027-01-15T03:00:00-0500") == noon)
        #expect(CatalogDate.date(from: "2027-01-15T08:00:00.250Z") == noon.addingTimeInterval(0.25))
        #expect(CatalogDate.date(from: "2024-02-29T00:00:00Z") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test(arguments: [
        "", "2027-01-15", "2027-01-15T08:00:00", "2027-01-15 08:00:00Z", "2027-13-01T00:00:00Z",
        "2027-02-30T00:00:00Z", "2027-01-15T24:00:00Z", "2027-01-15T08:00:00Zjunk", "27-01-15T08:00:00Z",
        "2027-01-15T08:00:00.Z", "2027-01-15T08:00:00+2",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(CatalogDate.date(from: text) == nil)
    }

    @Test func catalogDecodingNamesTheBadDate() throws {
        let json = #"{"schema":1,"catalogVersion":1,"issuedAt":"yesterday","baseURLs":[],"products":[]}"#
        #expect(throws: CatalogVerificationError.self) { try Catalog.load(from: Data(json.utf8)) }
        do {
            _ = try Catalog.load(from: Data(json.utf8))
        } catch {
            #expect("\(error)".contains("issuedAt"))
        }
    }
}
