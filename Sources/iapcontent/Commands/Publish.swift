import ContentPublishing
import ArgumentParser
import ContentDownloads
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension IAPContent {
    /// `iapcontent publish <catalog folder> s3://bucket/prefix`: upload a catalog folder so that readers never see
    /// a catalog without its signature or archives.
    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Upload a catalog folder to S3-compatible storage; readers see the old or the new catalog, never a mix.",
            discussion: HelpText.publish)

        @Argument(help: "The catalog folder `iapcontent catalog --output` wrote (signed), or a repository folder `iapcontent repo` keeps.")
        var folder: String

        @Argument(help: ArgumentHelp("Where to publish: s3://bucket/prefix.", valueName: "s3-url"))
        var destination: String

        @OptionGroup var store: ObjectStoreOptions

        @Option(help: ArgumentHelp("Objects larger than this go by multipart upload in parts of this many MiB (5 to 5120).", valueName: "MiB"))
        var partSize = 16

        @Option(help: "Parts uploaded at once.")
        var parallel = 4

        @Flag(name: .shortAndLong, help: "Print only the summary and errors.")
        var quiet = false

        func validate() throws {
            guard (5...5120).contains(partSize) else { throw ValidationError("--part-size must be 5 to 5120 (MiB), not \(partSize)") }
            guard (1...64).contains(parallel) else { throw ValidationError("--parallel must be 1 to 64, not \(parallel)") }
        }

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let client = try store.client(for: destination, environment: environment, afterRequest: TestHooks.requestCounter(environment))
            let display = PublishDisplay(quiet: quiet)
            let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
            var options = PublishOptions()
            options.partSize = Int64(partSize) << 20
            options.parallelParts = parallel
            options.onEvent = display.show
            options.beforeSwitch = { TestHooks.barrier(environment) }
            if RepositoryPublisher.isRepository(folderURL) {
                var publisher = RepositoryPublisher(client: client, folder: folderURL)
                publisher.options = options
                let summary = try publisher.publish()
                display.finish()
                Output.line(
                    "published timestamp version \(summary.catalogVersion) to \(client.location.displayName("metadata/timestamp.json")): "
                        + "\(summary.uploadedObjects) objects sent (\(Formatting.bytes(summary.uploadedBytes))), "
                        + "\(summary.presentObjects) already there")
                return
            }
            var publisher = CatalogPublisher(client: client, folder: folderURL)
            publisher.options = options
            let summary = try publisher.publish()
            display.finish()
            Output.line(
                "published catalogVersion \(summary.catalogVersion) to \(client.location.displayName("catalog.json")): "
                    + "\(summary.uploadedObjects) objects sent (\(Formatting.bytes(summary.uploadedBytes))), "
                    + "\(summary.presentObjects) already there")
        }
    }

    /// Environment hooks the tests use to stop a publisher at a chosen request or line two of them up; unset, they
    /// do nothing.
    enum TestHooks {
        /// `IAPCONTENT_PUBLISH_STOP_AFTER=N`: the process kills itself (SIGKILL, as a crash would) once N requests
        /// are done.
        static func requestCounter(_ environment: [String: String]) -> (ObjectRequest) -> Void {
            guard let limit = environment["IAPCONTENT_PUBLISH_STOP_AFTER"].flatMap(Int.init), limit > 0 else { return { _ in } }
            var done = 0
            return { _ in
                done += 1
                if done >= limit { kill(getpid(), SIGKILL) }
            }
        }

        /// `IAPCONTENT_PUBLISH_BARRIER=<folder>`: before the catalog switch, create `<folder>/ready-<pid>` and wait
        /// (at most 60 s) until `<folder>/go` exists.
        static func barrier(_ environment: [String: String]) {
            guard let folder = environment["IAPCONTENT_PUBLISH_BARRIER"], !folder.isEmpty else { return }
            _ = FileManager.default.createFile(atPath: folder + "/ready-\(getpid())", contents: nil)
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: folder + "/go"), Date() < deadline { usleep(10_000) }
        }
    }
}
