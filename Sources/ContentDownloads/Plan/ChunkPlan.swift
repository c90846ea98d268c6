internal import SystemSupport
internal import Foundation
internal import ContentPackaging

/// The chunks a download still fetches, kept durably beside its tree (``Store/planFile(treePath:)``) once the tree
/// holds every linked and rebuilt file: its presence says the local work is done, so a restart after `kill -9` goes
/// straight to fetching.
struct ChunkPlan: Codable, Sendable, Equatable {
    /// The version the tree becomes.
    var contentVersion: String
    /// The archive's length, from the signed catalog (range replies are checked against it).
    var archiveLength: Int64
    /// Indices (stream order) of the files the update writes; every other file is a link.
    var written: [Int]
    /// Indices of the chunks to fetch, ascending.
    var fetch: [Int]
    /// Bytes of archive those chunks take: the update's size.
    var fetchBytes: Int64
    /// Files linked, chunks rebuilt and their bytes: for the log and the report.
    var linkedFiles: Int
    var rebuiltChunks: Int
    var rebuiltBytes: Int64
    /// The packs and variants the tree holds (`nil`: a product without a declaration, installed whole); a restart
    /// applies it to the manifest again, so every file lands at the same install path.
    var selection: PackSelection?

    /// The plan's file for the tree at `treePath`.
    static func path(treePath: String) -> String { Store.planFile(treePath: treePath) }

    /// The plan kept for the tree at `treePath`, if any and readable.
    static func load(treePath: String) -> ChunkPlan? {
        guard let data = FileManager.default.contents(atPath: path(treePath: treePath)) else { return nil }
        return try? JSONDecoder().decode(ChunkPlan.self, from: data)
    }

    /// Writes the plan durably (temporary file, fsync, rename, fsync of the folder).
    func keep(treePath: String) throws(FileSystemError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data()
        try DurableFile.write(data, to: URL(fileURLWithPath: Self.path(treePath: treePath)))
    }
}
