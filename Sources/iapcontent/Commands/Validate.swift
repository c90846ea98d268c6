import ArgumentParser
import ContentCommandLine
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent validate <folder>`: check a content folder and list every problem.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check a content folder (ContentInfo.plist + Contents/); report every problem at once.",
            discussion: HelpText.validate)

        @Argument(help: "The package folder (holding ContentInfo.plist and Contents/).")
        var folder: String

        @Flag(help: "Print the result as JSON on stdout.")
        var json = false

        @Option(help: "Largest total size of the files, in bytes (default 1 TiB).")
        var maxSize: Int64 = PackageValidator.defaultMaxTotalBytes

        func validate() throws {
            guard maxSize > 0 else { throw ValidationError("--max-size must be a positive number of bytes") }
        }

        func run() async throws {
            let report = PackageValidator(maxTotalBytes: maxSize).validate(folder: URL(fileURLWithPath: folder))
            for note in report.notes { Output.note("note: \(note)") }
            if json {
                Output.line(try JSONText.encode(ValidationJSON(report), pretty: true))
            } else if let info = report.contentInfo, report.isValid {
                Output.line("\(info.productID) \(info.contentVersion): \(report.fileCount) files, \(report.totalBytes) bytes")
            } else {
                for problem in report.problems { Output.note(problem.description) }
            }
            if !report.isValid { throw ExitStatus.failure }
        }
    }
}

/// The `validate --json` document.
private struct ValidationJSON: Encodable {
    var valid: Bool
    var productID: String?
    var contentVersion: String?
    var fileCount: Int
    var totalBytes: Int64
    var problems: [ValidationProblem]
    var notes: [String]

    init(_ report: ValidationReport) {
        valid = report.isValid
        productID = report.contentInfo?.productID
        contentVersion = report.contentInfo?.contentVersion.description
        fileCount = report.fileCount
        totalBytes = report.totalBytes
        problems = report.problems
        notes = report.notes
    }
}
