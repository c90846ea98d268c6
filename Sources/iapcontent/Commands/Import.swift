import ArgumentParser
import ContentCommandLine
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent import <source> --output <folder> [--pack]`: Apple-hosted content into a content folder.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Turn Apple-hosted content (built target, Xcode project or uploaded .pkg) into a content folder.",
            discussion: HelpText.importContent)

        @Argument(help: "A built content folder, an Xcode project (folder or .xcodeproj) or the uploaded .pkg.")
        var source: String

        @Option(name: .shortAndLong, help: "The content folder to create (must not exist, or be empty).")
        var output: String

        @Option(help: "The In-App Purchase Content target to import when the project has several.")
        var target: String?

        @Flag(help: "Pack the imported folder too, as `iapcontent pack` does.")
        var pack = false

        @Option(help: "Directory for the archive and manifest with --pack.")
        var packOutput: String = "."

        @Option(help: "Largest total size of the files, in bytes (default 1 TiB).")
        var maxSize: Int64 = PackageValidator.defaultMaxTotalBytes

        func validate() throws {
            guard maxSize > 0 else { throw ValidationError("--max-size must be a positive number of bytes") }
        }

        func run() async throws {
            let importer = ContentImporter(maxTotalBytes: maxSize, targetName: target)
            let result: ImportResult
            do {
                result = try importer.importContent(from: URL(fileURLWithPath: source), to: URL(fileURLWithPath: output))
            } catch {
                Output.note(error.description)
                Output.note("nothing was written; \(output) is as it was")
                throw ExitStatus.failure
            }
            for note in result.notes { Output.note(note.description) }
            let info = result.contentInfo
            Output.note(
                "\(info.productID) \(info.contentVersion): \(result.fileCount) files, \(result.totalBytes) bytes "
                    + "imported from the \(result.sourceKind)")
            Output.line(result.folder.path)
            guard pack else { return }
            do {
                let packed = try Packer(validator: PackageValidator(maxTotalBytes: maxSize))
                    .pack(folder: result.folder, outputDirectory: URL(fileURLWithPath: packOutput))
                Output.line(packed.manifestURL.path)
                Output.line(packed.archiveURL.path)
            } catch {
                Output.note(error.description)
                throw ExitStatus.failure
            }
        }
    }
}
