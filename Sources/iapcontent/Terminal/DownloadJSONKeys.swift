/// The eight download keys shared by `status --json` and `download --json` events, spelled once.
///
/// Scripts read both outputs with the same code, so the key names, their order of meaning and the
/// "always present, null when empty" rule for `error` live in exactly one place.
enum DownloadJSONKeys: String, CodingKey {
    case productID, contentVersion, state, downloadedBytes, expectedContentLength, progress, timeRemaining, error

    /// Writes the eight keys into `encoder`'s top-level object; callers add their own keys beside them.
    static func encode(
        to encoder: any Encoder, productID: String, contentVersion: String, state: String, downloadedBytes: Int64,
        expectedContentLength: Int64, progress: Double, timeRemaining: Double, error: String?
    ) throws {
        var c = encoder.container(keyedBy: DownloadJSONKeys.self)
        try c.encode(productID, forKey: .productID)
        try c.encode(contentVersion, forKey: .contentVersion)
        try c.encode(state, forKey: .state)
        try c.encode(downloadedBytes, forKey: .downloadedBytes)
        try c.encode(expectedContentLength, forKey: .expectedContentLength)
        try c.encode(progress, forKey: .progress)
        try c.encode(timeRemaining, forKey: .timeRemaining)
        try c.encode(error, forKey: .error)  // null when nil: the key is always present
    }
}
