import ArgumentParser
import ContentCommandLine
import ContentPackaging
import Foundation
import SystemSupport

extension IAPContent {
    /// `iapcontent pack <folder>`: validate, then write `<product>-<version>.tar.zst` and its manifest.
    struct Pack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pack",
            abstract: "Pack a content folder into a reproducible <product>-<version>.tar.zst plus its manifest.",
            discussion: HelpText.pack)

        @Argument(help: "The package folder (holding ContentInfo.plist and Contents/).")
        var folder: String

        @Option(name: .shortAndLong, help: "Directory for the archive and manifest (default: current directory).")
        var output: String = "."

        @Option(help: "Largest total size of the files, in bytes (default 1 TiB).")
        var maxSize: Int64 = PackageValidator.defaultMaxTotalBytes

        @Option(help: "zstd compression level (1-19).")
        var level: Int = ArchiveWriter.defaultCompressionLevel

        @Flag(help: "Write the older one-frame archive (manifest schema 1, no chunk index) for clients that predate chunk-indexed archives.")
        var singleFrame = false

        @Option(help: ArgumentHelp(
            "Group files smaller than a chunk into zstd frames of at most this many compressed bytes, cut between files, so an update that changes a few of them fetches little else; 0 leaves them to the content-defined chunks.",
            valueName: "bytes"))
        var fileGroupBytes: Int64 = FileGroupBudget.standard.frameBytes

        @Flag(help: "Compress the frames with a zstd dictionary trained on the content's small files and stored at the archive's start: small files' frames keep most of the ratio of one frame. Standard tools then need the dictionary (zstd -D; docs/MANIFEST-FORMAT.md); without it bsdtar -xf reads the archive alone.")
        var dictionary = false

        @Option(help: ArgumentHelp("The dictionary's largest size (4096-1048576; implies --dictionary).", valueName: "bytes"))
        var dictionaryBytes: Int?

        /// Accepted so scripts written when chunk indexes were opt-in keep working; chunk-indexed is the default.
        @Flag(help: ArgumentHelp("Chunk-indexed archive: the default (accepted for older scripts).", visibility: .hidden))
        var chunked = false

        func validate() throws {
            guard maxSize > 0 else { throw ValidationError("--max-size must be a positive number of bytes") }
            guard (1...19).contains(level) else { throw ValidationError("--level must be between 1 and 19") }
            guard !(chunked && singleFrame) else { throw ValidationError("--chunked and --single-frame exclude each other") }
            guard fileGroupBytes == 0 || fileGroupBytes >= FileGroupBudget.smallestFrame else {
                throw ValidationError("--file-group-bytes must be 0 (no file groups) or at least \(FileGroupBudget.smallestFrame)")
            }
            if let dictionaryBytes, !Packer.dictionaryByteRange.contains(dictionaryBytes) {
                throw ValidationError("--dictionary-bytes must be between \(Packer.dictionaryByteRange.lowerBound) and \(Packer.dictionaryByteRange.upperBound)")
            }
            guard !(singleFrame && (dictionary || dictionaryBytes != nil)) else {
                throw ValidationError("--dictionary needs a chunk-indexed archive; leave out --single-frame")
            }
        }

        /// The default dictionary size: 64 KiB, where Django's small files gained the most per stored byte.
        static let defaultDictionaryBytes = 64 << 10

        func run() async throws {
            let registry = TemporaryFileRegistry()
            let signals = InterruptCleanup(registry: registry)
            defer { signals.cancel() }
            var packer = Packer(
                validator: PackageValidator(maxTotalBytes: maxSize), compressionLevel: level, chunked: !singleFrame)
            packer.fileGroups = fileGroupBytes == 0 ? nil : try FileGroupBudget(frameBytes: fileGroupBytes)
            packer.dictionaryBytes = dictionaryBytes ?? (dictionary ? Self.defaultDictionaryBytes : nil)
            do {
                let result = try packer.pack(
                    folder: URL(fileURLWithPath: folder), outputDirectory: URL(fileURLWithPath: output),
                    registry: registry)
                let manifest = result.manifest
                let identity = manifest.archiveSHA256.map { "sha256 \($0)" } ?? "\(manifest.chunks?.count ?? 0) chunks"
                Output.note(
                    "\(manifest.productID) \(manifest.contentVersion): \(manifest.files.count) files, "
                        + "\(manifest.uncompressedSize) bytes -> \(manifest.archiveSize) bytes, \(identity)")
                if manifest.packs != nil { Self.notePacks(PackSizeReport(manifest: manifest)) }
                if let stored = manifest.dictionary {
                    Output.note("dictionary: \(stored.size) bytes (ID \(stored.id)), stored in the archive's first \(stored.length) bytes")
                } else if packer.dictionaryBytes != nil {
                    Output.note("no dictionary: the small files hold too few bytes to train one; the archive needs none")
                }
                Output.line(result.manifestURL.path)
                Output.line(result.archiveURL.path)
            } catch {
                Output.note(error.description)
                throw ExitStatus.failure
            }
        }
    }
}

extension IAPContent.Pack {
    /// One note per pack and per variant: files, bytes, and the archive bytes a device fetches for it.
    static func notePacks(_ report: PackSizeReport) {
        for line in report.lines {
            let what = "pack \(line.pack) (\(line.policy.rawValue))" + (line.variant.map { " \($0)" } ?? "")
            Output.note("\(what): \(line.files) files, \(Formatting.bytes(line.bytes)); a device fetches \(Formatting.bytes(line.fetchBytes)) (\(line.fetchBytes) bytes)")
        }
    }
}

/// The table the signal handler reads; set while a pack runs (a plain global: handlers cannot capture).
nonisolated(unsafe) private var interruptTable: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

/// Removes a pack's temp files on SIGINT/SIGTERM, then exits 3 (interrupted; run the command again).
///
/// A real `sigaction` handler, not a `DispatchSource`: libdispatch's Linux signal sources rely on
/// the signal being blocked in every thread, which an async `main` cannot arrange, so delivery
/// would be lost to whichever thread the kernel picks. The handler only calls async-signal-safe
/// functions (`unlink`, `write`, `_exit`).
final class InterruptCleanup {
    /// Kept alive until ``cancel()`` so the table the handler reads is never freed under it.
    private let registry: TemporaryFileRegistry

    init(registry: TemporaryFileRegistry) {
        self.registry = registry
        interruptTable = registry.signalSafeTable
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                if let table = interruptTable { TemporaryFileRegistry.unlinkAll(in: table) }
                let message: StaticString = "interrupted; partial files removed\n"
                _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
                _exit(3)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Restores default signal handling (the pack is over).
    func cancel() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        interruptTable = nil
        withExtendedLifetime(registry) {}
    }
}
