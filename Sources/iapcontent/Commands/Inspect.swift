import ArgumentParser
import ContentCommandLine
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent inspect <archive>`: describe an archive and verify it against its manifest.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an archive's product, version, sizes and files; verify it against the manifest beside it.",
            discussion: HelpText.inspect)

        @Argument(help: "A <product>-<version>.tar.zst archive.")
        var archive: String

        func run() async throws {
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
    }
}
