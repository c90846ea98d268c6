import ArgumentParser
import ContentCommandLine
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent inspect <archive | manifest>`: describe an archive and verify it against its manifest, or
    /// decode a manifest alone (either encoding) and check its chunk index.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Show an archive's product, version, sizes and files; verify it against the manifest beside it.",
            discussion: HelpText.inspect)

        @Argument(help: "A <product>-<version>.tar.zst archive, or a manifest (.manifest or .manifest.json).")
        var archive: String

        @Flag(help: "Print the manifest (the one given, or the one beside the archive) as JSON, and nothing else.")
        var manifestJSON = false

        func run() async throws {
            if manifestJSON || !archive.hasSuffix(".tar.zst") {
                try inspectManifest()
                return
            }
            let report: InspectionReport
            do {
                report = try PackageInspector().inspect(archive: URL(fileURLWithPath: archive))
            } catch {
                Output.note(error.description)
                throw ExitStatus.failure
            }
            Output.line("product: \(report.contentInfo?.productID ?? "?")")
            Output.line("version: \(report.contentInfo?.contentVersion.description ?? "?")")
            Output.line("archive: \(archive)")
            Output.line("archive size: \(report.archiveSize) bytes")
            Output.line("archive sha256: \(report.archiveSHA256)")
            Output.line("uncompressed: \(report.uncompressedSize) bytes")
            Output.line("entries: \(report.entryCount)")
            Output.line("files:")
            for file in report.files {
                Output.line("  \(file.size)\t\(file.sha256)\t\(file.path)")
            }
            if report.manifestChecked {
                Output.line(report.problems.isEmpty ? "manifest: verified" : "manifest: checked, see problems")
            } else {
                Output.line("manifest: not found beside the archive (not verified)")
            }
            for problem in report.problems { Output.note(problem.description) }
            if !report.isValid { throw ExitStatus.failure }
        }

        /// Decodes the manifest given (or beside the archive given): as JSON with `--manifest-json`, else a
        /// summary and its chunk index's problems (exit 1 when there are any).
        private func inspectManifest() throws {
            let url = archive.hasSuffix(".tar.zst")
                ? PackageNaming.manifestURL(besideArchive: URL(fileURLWithPath: archive)) : URL(fileURLWithPath: archive)
            let manifest: PackageManifest
            let data: Data
            do {
                data = try Data(contentsOf: url)
                manifest = try PackageManifest.decode(data)
            } catch {
                Output.error("cannot read the manifest \(url.path): \(error); pass a manifest or an archive written by `iapcontent pack`", code: "manifestUnreadable")
                throw ExitStatus.failure
            }
            if manifestJSON {
                Output.line(String(decoding: try manifest.encoded().dropLast(), as: UTF8.self))
                return
            }
            Output.line("manifest: \(url.path)")
            Output.line("encoding: \(PackageManifest.isCompact(data) ? "compact" : "JSON"), \(data.count) bytes, schema \(manifest.schema)")
            Output.line("product: \(manifest.productID)")
            Output.line("version: \(manifest.contentVersion)")
            Output.line("archive: \(manifest.archiveName), \(manifest.archiveSize) bytes")
            Output.line("files: \(manifest.files.count), \(manifest.uncompressedSize) bytes")
            Output.line("directories: \(manifest.directories.map { "\($0.count)" } ?? "not listed")")
            Output.line("chunks: \(manifest.chunks.map { "\($0.count)" } ?? "none (one frame)")")
            let problems = manifest.chunkIndexProblems()
            for problem in problems { Output.note("\(url.path): \(problem)") }
            if !problems.isEmpty { throw ExitStatus.failure }
        }
    }
}
