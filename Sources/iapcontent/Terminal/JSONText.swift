import Foundation

/// JSON as the CLI prints it: sorted keys and unescaped slashes; pretty for a whole document (`status --json`,
/// `validate --json`), one line for a progress event.
enum JSONText {
    /// `value` as JSON text.
    static func encode(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
