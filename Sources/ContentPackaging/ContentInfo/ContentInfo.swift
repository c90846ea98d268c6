public import Foundation

/// The metadata file at the root of every hosted-content package (`ContentInfo.plist`).
///
/// Xcode writes it as an XML property list with `ContentVersion`, `IAPProductIdentifier` and,
/// for hosted content it built, a `Folder` key; authors may also ship a binary plist. Both are
/// accepted (Foundation's `PropertyListSerialization` reads either on Linux). Only the two
/// required keys are interpreted; every other key is kept, untouched, in ``otherKeys`` — the
/// file itself is packed byte for byte, so nothing is lost.
///
/// ```swift
/// let info = try ContentInfo(contentsOf: folder.appending(path: "ContentInfo.plist"))
/// print(info.productID, info.contentVersion)
/// ```
public struct ContentInfo: Sendable, Equatable {
    /// The file name at a package root.
    public static let fileName = "ContentInfo.plist"
    /// Largest plist read (the real ones are a few hundred bytes).
    public static let maxFileBytes = 1 << 20
    /// Longest allowed product identifier.
    public static let maxProductIDLength = 255

    /// `IAPProductIdentifier`: the product the content belongs to.
    public var productID: String
    /// `ContentVersion`: dot-separated integers.
    public var contentVersion: ContentVersion
    /// Every other top-level key, rendered as text (e.g. Xcode's `Folder`).
    public var otherKeys: [String: String]

    /// Creates a value from already-checked parts.
    public init(productID: String, contentVersion: ContentVersion, otherKeys: [String: String] = [:]) {
        self.productID = productID
        self.contentVersion = contentVersion
        self.otherKeys = otherKeys
    }

    /// Reads and checks the plist at `url`.
    ///
    /// - Throws: ``ContentInfoError`` naming the key and what is wrong.
    public init(contentsOf url: URL) throws(ContentInfoError) {
        try self.init(data: Self.readBytes(at: url))
    }

    /// Reads at most ``maxFileBytes`` + 1 bytes of the file (enough to tell it is too large).
    ///
    /// - Throws: ``ContentInfoError`` when the file cannot be opened or read.
    public static func readBytes(at url: URL) throws(ContentInfoError) -> Data {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw ContentInfoError(key: nil, message: "cannot be read (\(error.localizedDescription))")
        }
    }

    /// Parses and checks plist bytes (XML or binary).
    ///
    /// - Throws: ``ContentInfoError`` naming the key and what is wrong.
    public init(data: Data) throws(ContentInfoError) {
        guard data.count <= Self.maxFileBytes else {
            throw ContentInfoError(key: nil, message: "is larger than \(Self.maxFileBytes) bytes; it should hold a few keys")
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ContentInfoError(
                key: nil, message: "is not a valid property list (XML or binary); re-save it from Xcode or plutil")
        }
        guard let dictionary = object as? [String: Any] else {
            throw ContentInfoError(key: nil, message: "top level must be a dictionary")
        }
        var problems: [ContentInfoError] = []
        let productID = Self.string(dictionary, "IAPProductIdentifier", into: &problems)
        let versionString = Self.string(dictionary, "ContentVersion", into: &problems)
        if let productID, let problem = Self.productIDProblem(productID) {
            problems.append(ContentInfoError(key: "IAPProductIdentifier", message: problem))
        }
        var version: ContentVersion?
        if let versionString {
            version = ContentVersion(versionString)
            if version == nil {
                problems.append(ContentInfoError(
                    key: "ContentVersion",
                    message: "'\(versionString)' is not a version; use dot-separated integers such as 1.0 or 2.1.3"))
            }
        }
        if let first = problems.first { throw first }
        guard let productID, let version else {
            throw ContentInfoError(key: nil, message: "internal: required keys missing")
        }
        var other: [String: String] = [:]
        for (key, value) in dictionary where key != "IAPProductIdentifier" && key != "ContentVersion" {
            other[key] = "\(value)"
        }
        self.init(productID: productID, contentVersion: version, otherKeys: other)
    }

    /// All problems with the plist bytes, not only the first (the validator reports every one).
    public static func problems(in data: Data) -> [ContentInfoError] {
        do {
            _ = try ContentInfo(data: data)
            return []
        } catch {
            // Re-run the key checks individually so both keys' problems are reported.
            guard error.key != nil,
                  let dictionary = (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil))
                    as? [String: Any]
            else { return [error] }
            var problems: [ContentInfoError] = []
            if let id = string(dictionary, "IAPProductIdentifier", into: &problems), let problem = productIDProblem(id) {
                problems.append(ContentInfoError(key: "IAPProductIdentifier", message: problem))
            }
            if let version = string(dictionary, "ContentVersion", into: &problems), ContentVersion(version) == nil {
                problems.append(ContentInfoError(
                    key: "ContentVersion",
                    message: "'\(version)' is not a version; use dot-separated integers such as 1.0 or 2.1.3"))
            }
            return problems.isEmpty ? [error] : problems
        }
    }

    /// Why `id` is not an acceptable `IAPProductIdentifier`, or `nil` when it is.
    ///
    /// 1–255 characters of ASCII letters, digits, `.`, `-`, `_`; no leading or trailing dot.
    public static func productIDProblem(_ id: String) -> String? {
        if id.isEmpty { return "is empty; set it to the product identifier from App Store Connect" }
        if id.utf8.count > maxProductIDLength {
            return "is \(id.utf8.count) characters; the limit is \(maxProductIDLength)"
        }
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        if !allowed {
            return "'\(id)' has characters other than letters, digits, '.', '-' and '_'"
        }
        if id.hasPrefix(".") || id.hasSuffix(".") {
            return "'\(id)' must not start or end with '.'"
        }
        return nil
    }

    private static func string(_ dictionary: [String: Any], _ key: String, into problems: inout [ContentInfoError]) -> String? {
        guard let value = dictionary[key] else {
            // A spelling some guides use: Xcode's In-App Purchase Content template writes ContentVersion.
            let message = key == "ContentVersion" && dictionary["IAPContentVersion"] != nil
                ? "missing; found IAPContentVersion, but the key is ContentVersion (as Xcode writes it): rename it"
                : "missing; add it as a string"
            problems.append(ContentInfoError(key: key, message: message))
            return nil
        }
        guard let string = value as? String else {
            problems.append(ContentInfoError(key: key, message: "must be a string, found \(type(of: value))"))
            return nil
        }
        return string
    }
}
