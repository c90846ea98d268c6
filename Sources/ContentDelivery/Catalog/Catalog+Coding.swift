public import Foundation

extension Catalog {
    /// The one encoder every catalog is written with.
    ///
    /// Sorted keys, pretty-printed, unescaped slashes and ISO-8601 dates (whole seconds, UTC; ``CatalogDate``), so
    /// the same catalog always gives the same bytes — the signature covers those exact bytes.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(CatalogDate.string(from: date))
        }
        return encoder
    }

    /// The decoder matching ``encoder`` (ISO-8601 dates, read by ``CatalogDate``).
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = CatalogDate.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        }
        return decoder
    }

    /// The catalog as deterministic JSON bytes with a trailing newline (what `catalog.json` holds).
    public func encoded() throws -> Data {
        var data = try Catalog.encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes `catalog.json` bytes.
    ///
    /// - Throws: ``CatalogVerificationError/malformedCatalog(_:)`` naming the bad key, or a schema
    ///   newer than this code understands.
    public static func load(from data: Data) throws(CatalogVerificationError) -> Catalog {
        let catalog: Catalog
        do {
            catalog = try decoder.decode(Catalog.self, from: data)
        } catch let error as DecodingError {
            throw .malformedCatalog(error.humanDescription)
        } catch {
            throw .malformedCatalog("\(error)")
        }
        guard catalog.schema <= currentSchema else {
            throw .malformedCatalog(
                "schema \(catalog.schema) is newer than this client understands (\(currentSchema)); update the app")
        }
        return catalog
    }
}

extension DecodingError {
    /// "key products[2].sha256: ..." — a description a publisher can act on.
    var humanDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingPrefix(".").description
        }
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let at = path(context.codingPath)
            return (at.isEmpty ? "" : "at \(at): ") + context.debugDescription
        case .keyNotFound(let key, let context):
            let at = path(context.codingPath + [key])
            return "missing key \(at)"
        @unknown default:
            return "\(self)"
        }
    }
}
