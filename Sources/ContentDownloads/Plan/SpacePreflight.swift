import Foundation

/// Checks free space (`statvfs`) before a download or install writes anything.
///
/// Required = archive bytes still to be written + uncompressed content + margin: the one space formula, for every
/// kind of download. The planner passes the archive bytes still to fetch for a whole-archive download and
/// `archiveLength: 0` with the bytes a chunk plan writes for an in-place one; the installer passes
/// `archiveLength: 0` because its archive is already on disk.
public struct SpacePreflight: Sendable, Equatable {
    /// Fraction of the payload kept free (0.01 = 1 %).
    public var marginFraction: Double
    /// Fixed bytes kept free on top.
    public var marginBytes: Int64

    /// The default margin: 1 % + 16 MiB.
    public static let standard = SpacePreflight(marginFraction: 0.01, marginBytes: 16 << 20)

    /// A preflight with the given margin.
    public init(marginFraction: Double, marginBytes: Int64) {
        self.marginFraction = marginFraction
        self.marginBytes = marginBytes
    }

    /// Bytes needed to hold `archiveLength` + `uncompressedSize` with the margin.
    public func required(archiveLength: Int64, uncompressedSize: Int64) -> Int64 {
        let payload = archiveLength + uncompressedSize
        return payload + Int64((Double(payload) * marginFraction).rounded(.up)) + marginBytes
    }

    /// Free bytes for this process on the file system holding `path`.
    public static func availableBytes(atPath path: String) -> Int64 {
        FileSystemCalls.availableBytes(path)
    }

    /// ``check(atPath:archiveLength:uncompressedSize:)`` on `store`'s file system; when the room is short and
    /// the store's `trash/` holds old versions or used archives awaiting deletion
    /// (``ContentInstaller/Options/deferDeletion``), empties it first and checks again — space the trash holds
    /// is free space that has not been handed back yet, so a nearly full disk installs what it did before.
    public func check(store: Store, archiveLength: Int64, uncompressedSize: Int64) throws(InstallError) {
        do {
            try check(atPath: store.root.path, archiveLength: archiveLength, uncompressedSize: uncompressedSize)
        } catch {
            guard store.hasTrash, (try? store.emptyTrash()) != nil else { throw error }
            try check(atPath: store.root.path, archiveLength: archiveLength, uncompressedSize: uncompressedSize)
        }
    }

    /// Throws ``InstallError/insufficientSpace(needed:available:)`` unless `path`'s file system has room.
    public func check(atPath path: String, archiveLength: Int64, uncompressedSize: Int64) throws(InstallError) {
        let needed = required(archiveLength: archiveLength, uncompressedSize: uncompressedSize)
        let available = Self.availableBytes(atPath: path)
        if available < needed { throw .insufficientSpace(needed: needed, available: available) }
    }
}
