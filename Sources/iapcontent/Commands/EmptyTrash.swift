import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation
import SystemSupport

extension IAPContent {
    /// `iapcontent empty-trash` (hidden): deletes what a store's `trash/` holds — old versions and used
    /// archives that `download` and `restore` moved aside so they could return as soon as the new content
    /// was live. Those commands start it detached (``TrashEmptier``) when they leave anything in the trash;
    /// run by hand it does the same, and every store recovery empties the trash too.
    struct EmptyTrash: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "empty-trash",
            abstract: "Delete old versions and used archives waiting in the store's trash.",
            discussion: HelpText.emptyTrash,
            shouldDisplay: false)

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() throws {
            let location = storeOptions.location
            do {
                _ = try Store.emptyTrash(atRoot: location.url)
            } catch {
                Output.failure(error, prefix: "cannot empty the trash of \(location.url.path): ")
                throw ExitStatus.failure
            }
        }
    }
}

/// Starts `iapcontent empty-trash --store <store>` as a detached process when the store's trash holds
/// anything, so `download` and `restore` return once the content is live while the deletion (about 0.2 s per
/// GiB on a file system that discards freed blocks as it frees them) goes on without them.
enum TrashEmptier {
    /// Starts the detached deletion if `store` has trash; a failure to start leaves it for the next
    /// recovery, which empties the trash whenever a store is opened.
    static func startIfNeeded(store: Store) {
        guard store.hasTrash else { return }
        let program = CurrentExecutable.path
        DetachedProcess.start(program, arguments: [program, "empty-trash", "--store", store.root.path])
    }
}
