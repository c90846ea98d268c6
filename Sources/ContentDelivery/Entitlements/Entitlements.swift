public import Foundation

/// What one customer may use, as the app's server knows it: the input to a proactive restore.
///
/// On a new device the server already knows what the customer bought (Apple's TN2387, "proactive
/// in-app purchase restore"), so the client restores that content without asking for a purchase, and
/// removes content the server withdrew. A signed document of this shape is what `iapcontent
/// entitlements sign` writes:
///
/// ```json
/// { "subject": "customer-1", "issuedAt": "2027-01-15T08:00:00Z", "sequence": 1736928000,
///   "expires": "2027-01-22T08:00:00Z", "products": { "com.example.levels": "active" } }
/// ```
/// `sequence` only grows per subject: a client refuses a lower one than it has seen (rollback), as it
/// does for `catalogVersion`.
public struct Entitlements: Codable, Sendable, Equatable {
    /// The state of one product for the subject.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Owned: its content belongs on the device.
        case active
        /// Taken back (refund, chargeback): its content is removed.
        case revoked
        /// A time-limited entitlement that ran out: its content is removed.
        case expired
    }

    /// Whose entitlements these are (a customer or account identifier the server chose).
    public var subject: String
    /// When the server issued this document.
    public var issuedAt: Date
    /// Monotonic per subject; clients refuse a lower one than they have seen.
    public var sequence: UInt64
    /// After this instant clients refuse the document (freeze protection). `nil` = never expires.
    public var expires: Date?
    /// Every product the server knows about for the subject, by product identifier.
    public var products: [String: State]

    /// Creates an entitlements document.
    public init(subject: String, issuedAt: Date, sequence: UInt64, expires: Date? = nil, products: [String: State]) {
        self.subject = subject
        self.issuedAt = issuedAt
        self.sequence = sequence
        self.expires = expires
        self.products = products
    }

    /// Products whose content belongs on the device, sorted.
    public var activeProductIDs: [String] {
        products.filter { $0.value == .active }.map(\.key).sorted()
    }

    /// Products revoked or expired (their content is removed), sorted.
    public var withdrawnProductIDs: [String] {
        products.filter { $0.value != .active }.map(\.key).sorted()
    }

    /// Deterministic JSON bytes with a trailing newline (the signature covers these exact bytes).
    public func encoded() throws -> Data {
        var data = try Catalog.encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes document bytes; `document` names the file or URL in the error.
    ///
    /// - Throws: ``EntitlementsVerificationError/malformedDocument(document:detail:)``.
    public static func load(from data: Data, document: String) throws(EntitlementsVerificationError) -> Entitlements {
        do {
            return try Catalog.decoder.decode(Entitlements.self, from: data)
        } catch let error as DecodingError {
            throw .malformedDocument(document: document, detail: error.humanDescription)
        } catch {
            throw .malformedDocument(document: document, detail: "\(error)")
        }
    }
}
