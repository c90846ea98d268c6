/// A JSON document as TUF metadata holds it: objects, arrays, strings, integers, booleans and null — no
/// fractions, because canonical JSON has none.
///
/// Metadata is parsed into this tree (``JSONValue/parse(_:)``) and signed over its canonical bytes
/// (``JSONValue/canonicalBytes``), so what is verified is exactly what was read, unknown fields included.
package indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer; canonical JSON has no other numbers.
    case integer(Int64)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys are unique.
    case object([String: JSONValue])

    /// The object's members, or `nil` when this is not an object.
    package var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The JSON type's name as an error message says it ("object", "string", …).
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string literal.
    package init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    package init(integerLiteral value: Int64) { self = .integer(value) }
    /// A boolean literal.
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object literal; a repeated key keeps its last value.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}
