internal import SystemSupport
internal import ContentPackaging
internal import Logging
internal import Foundation
import Glibc

/// What the plan stage decided for a chunk-indexed download (``PlanBuilder/decide()``): the place stage builds
/// its tree from it (`TreeBuilder`).
struct ChunkPlanDecision {
    let package: ChunkedPackage
    /// The installed version's chunks and folder; `nil` for an install from nothing.
    let installed: (chunks: InstalledChunks, folder: InstalledFolder)?
    /// The package's folders, admitted.
    let directories: [String]
    /// Links, written files, rebuilt and fetched chunks.
    let draft: PlanDraft
    let treePath: String
    let archiveLength: Int64
    /// The manifest kept in `transfers/` that the plan follows, made durable with the plan (`nil`: no store).
    var manifestPath: String?
    /// Where the tree's pack selection is kept (`selections/` of the store), for a package with a selection.
    var selectionsDirectory: URL?
    /// Where the files a precomputed patch made wait, by file index (`nil`: no store).
    var patchedDirectory: URL?

    /// The file a patch made for the new file `index`.
    func patchedPath(_ index: Int) -> String {
        patchedDirectory?.appendingPathComponent(String(index), isDirectory: false).path ?? ""
    }
}
