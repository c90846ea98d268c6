import ArgumentParser
import ContentPackaging
import Dispatch
import Foundation

extension IAPContent {
    /// `iapcontent pack <folder>`: validate, then write `<product>-<version>.tar.zst` and its manifest.
    struct Pack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pack a content folder into a reproducible <product>-<version>.tar.zst plus .manifest.json.",
            discussion: """
                Validates first (same rules as 'validate'). Headers use SOURCE_DATE_EPOCH as the modification \
                time when set. The archive path is the last line on stdout. Ctrl-C removes the partial file.
                """)

        @Argument(help: "The package folder (holding ContentInfo.plist and Contents/).")
        var folder: String

        @Option(name: .shortAndLong, help: "Directory for the archive and manifest (default: current directory).")
        var output: String = "."

        @Option(help: "Largest total size of the files, in bytes (default 2 GiB).")
        var maxSize: Int64 = PackageValidator.defaultMaxTotalBytes

        @Option(help: "zstd compression level (1-19).")
        var level: Int = ArchiveWriter.defaultCompressionLevel

        func validate() throws {
            guard maxSize > 0 else { throw ValidationError("--max-size must be a positive number of bytes") }
            guard (1...19).contains(level) else { throw ValidationError("--level must be between 1 and 19") }
        }

        func run() async throws {
            let registry = TemporaryFileRegistry()
            let signals = InterruptCleanup(registry: registry)
            defer { signals.cancel() }
            let packer = Packer(
                validator: PackageValidator(maxTotalBytes: maxSize), compressionLevel: level)
            do {
                let result = try packer.pack(
                    folder: URL(fileURLWithPath: folder), outputDirectory: URL(fileURLWithPath: output),
                    registry: registry)
                let manifest = result.manifest
                Output.error(
                    "\(manifest.productID) \(manifest.contentVersion): \(manifest.files.count) files, "
                        + "\(manifest.uncompressedSize) bytes -> \(manifest.archiveSize) bytes, sha256 \(manifest.archiveSHA256)")
                Output.line(result.manifestURL.path)
                Output.line(result.archiveURL.path)
            } catch {
                Output.error(error.description)
                throw ExitCode(1)
            }
        }
    }
}

/// Removes a pack's temp files on SIGINT/SIGTERM, then exits 3 (interrupted; run the command again).
final class InterruptCleanup {
    private let sources: [any DispatchSourceSignal]

    init(registry: TemporaryFileRegistry) {
        let queue = DispatchQueue(label: "iapcontent-signals")
        sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                registry.removeAll()
                FileHandle.standardError.write(Data("interrupted; partial files removed\n".utf8))
                exit(3)
            }
            source.resume()
            return source
        }
    }

    /// Stops listening and restores default signal handling.
    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
