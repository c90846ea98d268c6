public import Foundation

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates `/tmp/iapcontent-<prefix>-XXXXXX`.
    public init(_ prefix: String = "test") throws {
        var template = Array("\(NSTemporaryDirectory())/iapcontent-\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        url = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
    }

    deinit {
        // Make everything removable first (tests chmod things).
        _ = try? CommandRunner.run("/bin/chmod", ["-R", "u+rwx", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    /// `url/relative`.
    public func appending(_ relative: String) -> URL {
        url.appendingPathComponent(relative)
    }
}
