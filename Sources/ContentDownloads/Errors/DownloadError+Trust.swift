public import ContentDelivery
public import ContentPackaging

extension DownloadError.Code {
    /// The catalog's signature is missing while keys are pinned.
    public static let missingSignature = DownloadError.Code(rawValue: "missingSignature")
    /// The catalog's signature is malformed, by an unpinned key, or does not match the bytes.
    public static let badSignature = DownloadError.Code(rawValue: "badSignature")
    /// The catalog is past its `expires` (freeze).
    public static let catalogExpired = DownloadError.Code(rawValue: "catalogExpired")
    /// The catalog's `catalogVersion` is lower than one this store accepted (rollback).
    public static let rollback = DownloadError.Code(rawValue: "rollback")
    /// The catalog offers an older content version than the installed one.
    public static let downgrade = DownloadError.Code(rawValue: "downgrade")
    /// The server refused the authorized archive URL twice (HTTP 403/410), or the authorizer failed.
    public static let unauthorized = DownloadError.Code(rawValue: "unauthorized")
}

extension DownloadError {
    /// A catalog refusal, with one distinct code per reason and the catalog's URL in the message.
    public static func untrusted(_ error: CatalogVerificationError, catalogURL: String) -> DownloadError {
        let code: Code
        switch error {
        case .missingSignature: code = .missingSignature
        case .malformedSignature, .unknownKey, .badSignature, .invalidPinnedKey: code = .badSignature
        case .malformedCatalog: code = .catalog
        case .expired: code = .catalogExpired
        case .rollback: code = .rollback
        case .downgrade: code = .downgrade
        }
        return DownloadError(code: code, message: "refusing the catalog \(catalogURL): \(error)")
    }

    /// The offered version is older than the installed one.
    public static func downgrade(productID: String, installed: ContentVersion, offered: ContentVersion) -> DownloadError {
        DownloadError(
            code: .downgrade,
            message: "refusing to downgrade \(productID): the catalog offers version \(offered) but \(installed) is installed; "
                + "the server may be serving a stale catalog — delete the content first if you really want the older version")
    }

    /// The archive URL was refused after the authorizer was asked again.
    public static func unauthorized(productID: String, status: Int, url: String) -> DownloadError {
        let reason = status == 410 ? "the token expired" : "the token is missing or wrong"
        return DownloadError(
            code: .unauthorized,
            message: "HTTP \(status) for \(url) (\(reason)) even with a fresh URL from the authorizer for \(productID); "
                + "check the token key and the clock of the token service, then run the command again")
    }

    /// The authorizer threw.
    public static func authorizerFailed(productID: String, url: String, error: any Error) -> DownloadError {
        DownloadError(
            code: .unauthorized,
            message: "the URL authorizer failed for \(productID) (\(url)): \(error); check the token service, then run the command again")
    }
}

extension DownloadError.Code {
    /// The entitlements document cannot be fetched or is not one.
    public static let entitlements = DownloadError.Code(rawValue: "entitlements")
    /// The entitlements document is past its `expires`.
    public static let entitlementsExpired = DownloadError.Code(rawValue: "entitlementsExpired")
}

extension DownloadError {
    /// An entitlements refusal, with one distinct code per reason; the message names the document.
    public static func untrustedEntitlements(_ error: EntitlementsVerificationError) -> DownloadError {
        let code: Code
        switch error {
        case .missingSignature: code = .missingSignature
        case .malformedSignature, .unknownKey, .badSignature, .invalidPinnedKey: code = .badSignature
        case .malformedDocument, .wrongSubject: code = .entitlements
        case .expired: code = .entitlementsExpired
        case .rollback: code = .rollback
        }
        return DownloadError(code: code, message: "refusing the entitlements: \(error)")
    }
}
