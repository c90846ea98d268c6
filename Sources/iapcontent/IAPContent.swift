import ArgumentParser
import ContentCommandLine
import SystemSupport

/// The `iapcontent` command: author, host and download hosted content.
@main
struct IAPContent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapcontent",
        abstract: "Author, host and download in-app-purchase hosted content (StoreKit SKDownload semantics).",
        discussion: HelpText.root,
        version: ProgramVersion.current,
        subcommands: [
            Import.self, Validate.self, Pack.self, Inspect.self,
            BuildCatalog.self, Repo.self, Publish.self, Prune.self, Keygen.self, EntitlementsCommand.self, Serve.self, SignURL.self,
            Download.self, Status.self, Pause.self, Resume.self, Cancel.self, Daemon.self,
            Content.self, Packs.self, Verify.self, Repair.self, Diff.self, Patch.self, Delete.self, Restore.self, InstallArchive.self, DisplayDemo.self, EmptyTrash.self,
        ])

    /// Parses and runs the command; errors become exit statuses in one place (``CommandMain/run(_:arguments:)``).
    /// One malloc arena for the whole process (``ProcessMemory/shareOneArena()``): with many files, what one
    /// stage frees serves the next instead of staying resident.
    static func main() async {
        ProcessMemory.shareOneArena()
        await CommandMain.run(IAPContent.self)
    }
}
