import ArgumentParser
import ContentCommandLine
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent diff`: what an update between two packed versions costs a client, before it is published.
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show the bytes a client with OLD installed fetches to update to NEW (chunk-indexed packs).",
            discussion: HelpText.diff)

        @Argument(help: "The installed version: its manifest, or its archive (the manifest beside it is read).")
        var old: String

        @Argument(help: "The offered version: its manifest or archive.")
        var new: String

        @Flag(help: "Print the result as JSON.")
        var json = false

        func run() async throws {
            let size: UpdateSize
            do {
                size = try UpdateSize.between(installed: try Self.manifest(old), offered: try Self.manifest(new))
            } catch let error as InstallError {
                Output.failure(error, prefix: "cannot compare: ")
                throw ExitStatus.failure
            }
            if json {
                Output.line(try JSONText.encode(size, pretty: true))
            } else {
                Output.line(Self.describe(size))
            }
        }

        /// One line: the fetch, its share of a full download, and how the rest is found locally.
        static func describe(_ size: UpdateSize) -> String {
            let mib = { (bytes: Int64) in String(format: "%.2f MiB", Double(bytes) / 1_048_576) }
            return "\(size.fromVersion) → \(size.toVersion): fetches \(mib(size.fetchBytes)) of \(mib(size.archiveBytes)) ("
                + String(format: "%.2f %%", size.percentOfArchive) + "), \(size.fetchChunks) of \(size.chunks) chunks; "
                + "\(size.linkedFiles) files kept, \(size.writtenFiles) written, \(size.rebuiltChunks) chunks rebuilt from installed files"
                + (size.packs ?? []).map { line in
                    "\n  pack \(line.pack)" + (line.variant.map { " \($0)" } ?? "") + ": fetches \(mib(line.fetchBytes))"
                }.joined()
        }

        /// The manifest at `path`, or beside the archive at `path`.
        static func manifest(_ path: String) throws -> PackageManifest {
            let url = path.hasSuffix(".tar.zst")
                ? PackageNaming.manifestURL(besideArchive: URL(fileURLWithPath: path)) : URL(fileURLWithPath: path)
            do {
                return try PackageManifest.decode(try Data(contentsOf: url))
            } catch {
                Output.error("cannot read the manifest \(url.path): \(error); pass a manifest or an archive written by `iapcontent pack`", code: "manifestUnreadable")
                throw ExitStatus.failure
            }
        }
    }
}
