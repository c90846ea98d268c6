internal import Foundation

/// The one wire form of a download, shared by the daemon's replies and notifications, ``DaemonClient``-style
/// readers and any embedder that stores or sends downloads: StoreKit's fields with every key present, `null` when
/// empty, and the error as its stable code and message.
///
/// ```json
/// {"transactionID": "receipt-42", "productID": "com.example.levels", "contentIdentifier": "levels",
///  "contentVersion": "1.0", "state": "active", "downloadedBytes": 1048576, "expectedContentLength": 4194304,
///  "progress": 0.25, "timeRemaining": 3.5, "contentURL": null, "error": null}
/// ```
extension ContentDownload: Codable {
    enum CodingKeys: String, CodingKey {
        case transactionID, productID, contentIdentifier, contentVersion, state, downloadedBytes, expectedContentLength,
             progress, timeRemaining, contentURL, error
    }

    /// Encodes the download in its wire form (`contentURL` as a path).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(transactionID, forKey: .transactionID)
        try snapshot.encodeFields(into: &c)
        try c.encode(contentURL?.path, forKey: .contentURL)
    }

    /// Reads a download in its wire form (a missing `contentIdentifier` reads as empty).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            transactionID: try c.decode(String.self, forKey: .transactionID),
            snapshot: try DownloadSnapshot(fields: c),
            contentURL: try c.decodeIfPresent(String.self, forKey: .contentURL).map { URL(fileURLWithPath: $0, isDirectory: true) })
    }
}

extension DownloadSnapshot {
    /// The snapshot's keys of the wire form (``ContentDownload``'s, without the transaction and the folder).
    func encodeFields(into c: inout KeyedEncodingContainer<ContentDownload.CodingKeys>) throws {
        try c.encode(productID, forKey: .productID)
        try c.encode(contentIdentifier, forKey: .contentIdentifier)
        try c.encode(contentVersion, forKey: .contentVersion)
        try c.encode(state, forKey: .state)
        try c.encode(downloadedBytes, forKey: .downloadedBytes)
        try c.encode(expectedContentLength, forKey: .expectedContentLength)
        try c.encode(progress, forKey: .progress)
        try c.encode(timeRemaining, forKey: .timeRemaining)
        try c.encode(error, forKey: .error)
    }

    /// A snapshot read from the wire form's keys.
    init(fields c: KeyedDecodingContainer<ContentDownload.CodingKeys>) throws {
        self.init(
            productID: try c.decode(String.self, forKey: .productID),
            contentIdentifier: try c.decodeIfPresent(String.self, forKey: .contentIdentifier) ?? "",
            contentVersion: try c.decode(String.self, forKey: .contentVersion),
            state: try c.decode(DownloadState.self, forKey: .state),
            downloadedBytes: try c.decode(Int64.self, forKey: .downloadedBytes),
            expectedContentLength: try c.decode(Int64.self, forKey: .expectedContentLength),
            progress: try c.decode(Double.self, forKey: .progress),
            timeRemaining: try c.decode(Double.self, forKey: .timeRemaining),
            error: try c.decodeIfPresent(DownloadError.self, forKey: .error))
    }

    /// Encodes the snapshot in the download's wire form (no transaction, no folder).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ContentDownload.CodingKeys.self)
        try encodeFields(into: &c)
    }

    /// Reads a snapshot from the download's wire form.
    public init(from decoder: any Decoder) throws {
        try self.init(fields: decoder.container(keyedBy: ContentDownload.CodingKeys.self))
    }
}

extension DownloadError: Codable {
    enum CodingKeys: String, CodingKey { case code, message }

    /// Encodes the error as `{"code": …, "message": …}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code.rawValue, forKey: .code)
        try c.encode(message, forKey: .message)
    }

    /// Reads `{"code": …, "message": …}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(code: Code(rawValue: try c.decode(String.self, forKey: .code)), message: try c.decode(String.self, forKey: .message))
    }
}
