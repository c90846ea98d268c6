public import Foundation

extension Catalog {
    /// The JSON decoder for `catalog.json`: ISO-8601 dates.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The JSON encoder for `catalog.json`: ISO-8601 dates, sorted keys, pretty-printed (stable bytes to sign).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
