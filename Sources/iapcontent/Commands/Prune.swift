import ContentPublishing
import ArgumentParser
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent prune s3://bucket/prefix --keep N`: delete the objects no recent catalog references.
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Delete from S3-compatible storage what neither the live catalog nor the last N published ones reference.",
            discussion: HelpText.prune)

        @Argument(help: ArgumentHelp("Where the catalog is published: s3://bucket/prefix.", valueName: "s3-url"))
        var destination: String

        @Option(help: "How many published catalogs, newest first, keep their archives (the live one always does).")
        var keep: Int

        @Option(help: ArgumentHelp("Keep objects written less than this many seconds ago (a publish may be under way).", valueName: "seconds"))
        var minAge = 3600

        @Flag(help: "List what would be deleted; delete nothing.")
        var dryRun = false

        @OptionGroup var store: ObjectStoreOptions

        func validate() throws {
            guard keep >= 1 else { throw ValidationError("--keep must be 1 or more, not \(keep)") }
            guard minAge >= 0 else { throw ValidationError("--min-age must be 0 or more seconds, not \(minAge)") }
        }

        func run() throws {
            let client = try store.client(for: destination)
            var pruner = CatalogPruner(client: client, keep: keep)
            pruner.minimumAge = TimeInterval(minAge)
            pruner.dryRun = dryRun
            pruner.onDelete = { object in
                Output.line("\(dryRun ? "would delete" : "deleted") \(client.location.displayName(object.name)) (\(Formatting.bytes(object.length)))")
            }
            let summary = try pruner.prune()
            var line = "\(dryRun ? "would delete" : "deleted") \(summary.deletedObjects) objects (\(Formatting.bytes(summary.deletedBytes))); "
                + "kept the objects of \(summary.keptCatalogs) catalogs"
            if summary.youngObjects > 0 { line += "; \(summary.youngObjects) unreferenced objects younger than \(minAge) s kept" }
            Output.line(line)
        }
    }
}
