/// An optional that a synthesized `Codable` writes as JSON `null` when empty, instead of leaving its key out, so
/// every key of the JSON the CLI prints and the daemon sends is always present.
@propertyWrapper
package struct NullWhenEmpty<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
    /// The value, nil for null.
    package var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Reads the value, or null.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Writes the value, or `null`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
