public import Foundation
import Crypto

/// Purchaser-only URL tokens: `base64url(HMAC-SHA256(key, "v1\n" + product + "\n" + path + "\n" + expires))`.
///
/// A signed URL carries three query parameters: `product`, `expires` (Unix seconds) and `token`.
/// `path` is the URL's percent-encoded path exactly as it appears in the request line
/// (e.g. `/archives/<sha256>.tar.zst`), so a token for one file is useless for another, and a token
/// for one product is useless with another product's name. Tokens decide *who* may download;
/// *what* is downloaded is guaranteed by the signed catalog's sha256.
public enum URLToken {
    /// Query parameter names.
    public static let productParameter = "product"
    /// Query parameter carrying the expiry (Unix seconds).
    public static let expiresParameter = "expires"
    /// Query parameter carrying the token.
    public static let tokenParameter = "token"

    static func message(product: String, path: String, expires: Int64) -> Data {
        Data("v1\n\(product)\n\(path)\n\(expires)".utf8)
    }

    /// The token for one product, path and expiry.
    public static func token(key: URLTokenKey, product: String, path: String, expires: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: message(product: product, path: path, expires: expires), using: key.key)
        return Data(mac).base64URLEncoded
    }
}

/// Signs archive URLs for a purchaser (run by the backend after it checked the entitlement).
public struct URLTokenSigner: Sendable {
    /// The shared token key.
    public let key: URLTokenKey

    /// Creates a signer.
    public init(key: URLTokenKey) {
        self.key = key
    }

    /// `url` with `product`, `expires` and `token` query parameters appended.
    ///
    /// - Parameters:
    ///   - url: The archive URL (existing query items are kept; the path is what gets signed).
    ///   - product: The product the purchaser owns.
    ///   - expiresIn: Seconds the URL stays valid (minutes is typical).
    ///   - now: The current time.
    public func sign(url: URL, product: String, expiresIn: TimeInterval, now: Date = Date()) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)!
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let expires = Int64(now.timeIntervalSince1970.rounded(.down) + expiresIn.rounded(.down))
        let token = URLToken.token(key: key, product: product, path: path, expires: expires)
        var items = (components.queryItems ?? []).filter {
            ![URLToken.productParameter, URLToken.expiresParameter, URLToken.tokenParameter].contains($0.name)
        }
        items.append(URLQueryItem(name: URLToken.productParameter, value: product))
        items.append(URLQueryItem(name: URLToken.expiresParameter, value: String(expires)))
        items.append(URLQueryItem(name: URLToken.tokenParameter, value: token))
        components.queryItems = items
        // URLComponents leaves '+' alone in query values; encode it so servers do not read a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }
}

/// The outcome of checking a token: what the server answers.
public enum URLTokenVerdict: Sendable, Equatable {
    /// Valid and unexpired: serve the file.
    case ok
    /// No token (or no product/expires): 403.
    case missing
    /// The token does not match product, path and expiry: 403.
    case forged
    /// A genuine token whose time has passed: 410.
    case expired

    /// The HTTP status to answer with (200 for ``ok``).
    public var httpStatus: Int {
        switch self {
        case .ok: 200
        case .missing, .forged: 403
        case .expired: 410
        }
    }
}

/// Checks tokens on incoming requests (run by `serve --token-key` or an edge function).
public struct URLTokenVerifier: Sendable {
    /// The shared token key.
    public let key: URLTokenKey

    /// Creates a verifier.
    public init(key: URLTokenKey) {
        self.key = key
    }

    /// Checks a request's token.
    ///
    /// The MAC is checked (in constant time) before the expiry, so a tampered `expires` is
    /// ``URLTokenVerdict/forged``, not ``URLTokenVerdict/expired``.
    /// - Parameters:
    ///   - path: The request's percent-encoded path, without the query.
    ///   - query: The decoded query parameters.
    ///   - now: The current time.
    public func verify(path: String, query: [String: String], now: Date = Date()) -> URLTokenVerdict {
        guard let product = query[URLToken.productParameter], let expiresText = query[URLToken.expiresParameter],
              let tokenText = query[URLToken.tokenParameter], !tokenText.isEmpty
        else { return .missing }
        guard let expires = Int64(expiresText), let mac = Data(base64URLEncoded: tokenText) else { return .forged }
        let valid = HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: URLToken.message(product: product, path: path, expires: expires), using: key.key)
        guard valid else { return .forged }
        guard Double(expires) > now.timeIntervalSince1970 else { return .expired }
        return .ok
    }
}

extension Data {
    /// RFC 4648 §5 base64url without padding.
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    init?(base64URLEncoded text: String) {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        self.init(base64Encoded: base64)
    }
}
