/// Why a metadata document was refused: each case names the role (and the key or field) and what to do.
package enum MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON a metadata file may hold (`detail` names the byte offset).
    case syntax(role: String, detail: String)
    /// A field is missing, has the wrong type or a value outside what the specification allows.
    case invalidField(role: String, field: String, problem: String)
    /// `signed._type` names another role than the one expected.
    case wrongType(role: String, expected: String, found: String)
    /// A key is of a type or scheme this code does not verify.
    case unsupportedKey(role: String, keyID: String, keyType: String, scheme: String)
    /// Fewer distinct keys of the role signed than its threshold.
    case thresholdNotMet(role: String, valid: Int, threshold: Int)
    /// The document expired.
    case expired(role: String, expires: String)

    /// A message naming the role, key or field.
    package var description: String {
        switch self {
        case .syntax(let role, let detail):
            return "\(role) metadata is not valid JSON \(detail); fetch or regenerate it"
        case .invalidField(let role, let field, let problem):
            return "\(role) metadata: \(field) \(problem)"
        case .wrongType(let role, let expected, let found):
            return "\(role) metadata: signed._type is \"\(found)\", expected \"\(expected)\"; the file holds another role"
        case .unsupportedKey(let role, let keyID, let keyType, let scheme):
            return "\(role) metadata: key \(keyID) is \(keyType)/\(scheme); only ed25519/ed25519 keys are supported"
        case .thresholdNotMet(let role, let valid, let threshold):
            return "\(role) metadata: \(valid) valid signature(s) from distinct keys of the role, threshold is \(threshold); "
                + "sign it with more of the role's keys"
        case .expired(let role, let expires):
            return "\(role) metadata expired at \(expires); the repository must re-sign it (`iapcontent repo refresh`)"
        }
    }
}
