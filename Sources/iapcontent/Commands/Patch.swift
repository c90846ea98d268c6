import ArgumentParser
import ContentCommandLine
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent patch`: the precomputed patch that updates OLD to NEW, for a static host to serve beside the
    /// archives, and what it costs against the chunks an update would fetch without it.
    struct Patch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "patch",
            abstract: "Write the patch that updates a client from OLD to NEW: the new manifest and the changed files, each compressed against its old version.",
            discussion: HelpText.patch)

        @Argument(help: "The old version's content folder, as it was packed.")
        var oldFolder: String

        @Argument(help: "The new version's content folder, as it was packed.")
        var newFolder: String

        @Option(help: ArgumentHelp("The old version's manifest, as `pack` wrote it.", valueName: "file"))
        var oldManifest: String

        @Option(help: ArgumentHelp("The new version's manifest, as `pack` wrote it.", valueName: "file"))
        var newManifest: String

        @Option(name: .shortAndLong, help: ArgumentHelp("The folder the patch is written to (beside the archives).", valueName: "folder"))
        var output: String = "."

        @Flag(help: "Print the result as JSON.")
        var json = false

        /// What `--json` prints.
        struct Report: Encodable {
            var patch: String
            var bytes: Int
            var files: Int
            var fileBytes: Int64
            var manifestFrameBytes: Int
            var leftToChunks: Int
            /// What the same update fetches without the patch: the chunks and the whole new manifest.
            var chunkUpdateBytes: Int64
        }

        func run() async throws {
            let oldData = try Self.read(oldManifest), newData = try Self.read(newManifest)
            do {
                let (patch, summary) = try PatchWriter.write(
                    oldManifest: oldData, oldFolder: URL(fileURLWithPath: oldFolder), newManifest: newData,
                    newFolder: URL(fileURLWithPath: newFolder))
                let old = try PackageManifest.decode(oldData), new = try PackageManifest.decode(newData)
                let url = URL(fileURLWithPath: output, isDirectory: true)
                    .appendingPathComponent(PatchWriter.fileName(productID: new.productID, from: old.contentVersion, to: new.contentVersion))
                try PatchWriter.save(patch, to: url)
                let chunks = try UpdateSize.between(installed: old, offered: new).fetchBytes + Int64(newData.count)
                let report = Report(
                    patch: url.path, bytes: summary.bytes, files: summary.files, fileBytes: summary.fileBytes,
                    manifestFrameBytes: summary.manifestFrameBytes, leftToChunks: summary.leftToChunks, chunkUpdateBytes: chunks)
                if json {
                    Output.line(try JSONText.encode(report, pretty: true))
                } else {
                    Output.line(url.path)
                    Output.line("\(old.contentVersion) → \(new.contentVersion): \(summary.bytes) bytes (\(summary.files) files of \(summary.fileBytes) bytes, the manifest in \(summary.manifestFrameBytes)); without it the update fetches \(chunks) bytes"
                        + (summary.leftToChunks > 0 ? "; \(summary.leftToChunks) files past \(PatchFormat.largestPatchedFile >> 20) MiB are left to the chunks" : ""))
                }
            } catch let error as PatchError {
                Output.error("cannot write the patch: \(error)", code: "patch")
                throw ExitStatus.failure
            } catch let error as InstallError {
                Output.failure(error, prefix: "cannot compare: ")
                throw ExitStatus.failure
            }
        }

        /// The bytes of the manifest file at `path`.
        static func read(_ path: String) throws -> Data {
            do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                Output.error("cannot read the manifest \(path): \(error.localizedDescription); pass a manifest written by `iapcontent pack`", code: "manifestUnreadable")
                throw ExitStatus.failure
            }
        }
    }
}
