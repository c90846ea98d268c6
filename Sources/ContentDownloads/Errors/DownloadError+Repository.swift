package import ContentDelivery

extension DownloadError.Code {
    /// A TUF metadata file is signed by fewer distinct keys of its role than the role's threshold (tampered, signed
    /// by a revoked or unknown key, or by too few of the root holders).
    public static let thresholdNotMet = DownloadError.Code(rawValue: "thresholdNotMet")
    /// A TUF metadata file is past its `expires` (indefinite freeze: a server replaying old, validly signed files).
    public static let metadataExpired = DownloadError.Code(rawValue: "metadataExpired")
    /// A TUF metadata file is not the version the file above it names (mix-and-match: files of two publishes).
    public static let mixAndMatch = DownloadError.Code(rawValue: "mixAndMatch")
    /// The root chain skipped a version (`N.root.json` holds another version than `N`): a fast-forward attempt.
    public static let fastForward = DownloadError.Code(rawValue: "fastForward")
    /// A TUF metadata file is larger than the client reads for its role (endless data).
    public static let metadataTooLarge = DownloadError.Code(rawValue: "metadataTooLarge")
    /// A TUF metadata file is not metadata this client reads (syntax, a missing or wrong field, a key type).
    public static let badMetadata = DownloadError.Code(rawValue: "badMetadata")
}

extension DownloadError {
    /// A metadata refusal with its own code, naming the file and the repository.
    package static func untrusted(_ error: MetadataError, file: String, repository: String) -> DownloadError {
        let code: Code = switch error {
        case .thresholdNotMet: .thresholdNotMet
        case .expired: .metadataExpired
        case .syntax, .invalidField, .wrongType, .unsupportedKey: .badMetadata
        }
        return DownloadError(code: code, message: "refusing \(file) of the repository \(repository): \(error)")
    }

    /// A repository refusal of kind `code`, naming the file and the repository.
    package static func repository(_ code: Code, file: String, repository: String, _ problem: String) -> DownloadError {
        DownloadError(code: code, message: "refusing \(file) of the repository \(repository): \(problem)")
    }
}
