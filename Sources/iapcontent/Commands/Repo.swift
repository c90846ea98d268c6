import ArgumentParser
import ContentDelivery
import Foundation

extension IAPContent {
    /// `iapcontent repo …`: the catalog as a TUF repository — create it, publish into it, keep it fresh, manage its keys.
    struct Repo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repo",
            abstract: "Write and maintain a TUF repository: k-of-n offline root keys, online keys, hashed bins.",
            discussion: HelpText.repo,
            subcommands: [Init.self, Add.self, Refresh.self, RotateRoot.self, Key.self, Check.self])
    }
}

/// Key files from `iapcontent keygen`, as signers.
private func signers(_ paths: [String]) throws -> [any MetadataSigner] {
    try paths.map { path throws in try KeyFileSigner(path: path) }
}

/// Prints the files a command wrote, relative to the repository.
private func report(_ written: [URL], in directory: String) {
    let base = URL(fileURLWithPath: directory).standardizedFileURL.path + "/"
    for url in written { Output.line("wrote " + url.standardizedFileURL.path.replacingOccurrences(of: base, with: "")) }
}

extension IAPContent.Repo {
    /// `repo init`.
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create a repository: root 1 with k-of-n root keys, the online keys, empty bins.",
            discussion: HelpText.repoInit)

        @Argument(help: "Repository folder to create (metadata/ and targets/ inside).")
        var directory: String

        @Option(name: .customLong("root-key"), help: "Root key file (repeatable); every one signs root version 1.")
        var rootKeys: [String] = []

        @Option(help: "How many root keys must sign a new root.")
        var rootThreshold = 1

        @Option(name: .customLong("online-key"), help: "Online key file (repeatable): signs targets, bins, snapshot, timestamp.")
        var onlineKeys: [String] = []

        @Option(help: "Bins: 2^N of them; a target's bin is the first N bits of SHA-256(path).")
        var binsBitLength = 8

        mutating func run() async throws {
            guard !rootKeys.isEmpty, !onlineKeys.isEmpty else {
                throw ValidationError("pass at least one --root-key and one --online-key (files from `iapcontent keygen`)")
            }
            let repository = TUFRepository(directory: URL(fileURLWithPath: directory, isDirectory: true))
            let written = try repository.initialize(
                rootSigners: signers(rootKeys), rootThreshold: rootThreshold, onlineSigners: signers(onlineKeys),
                binsBitLength: binsBitLength)
            Output.line("wrote \(written.count) metadata files; ship \(directory)/metadata/1.root.json with the app")
        }
    }

    /// `repo add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Publish the products of a catalog folder: their bins, then snapshot and timestamp.",
            discussion: HelpText.repoAdd)

        @Argument(help: "Repository folder.")
        var directory: String

        @Argument(help: "Catalog folders written by `iapcontent catalog`, or folders of archives written by `iapcontent pack`.")
        var catalogs: [String]

        @Option(name: .customLong("online-key"), help: "Online key file (repeatable).")
        var onlineKeys: [String] = []

        mutating func run() async throws {
            let repository = TUFRepository(directory: URL(fileURLWithPath: directory, isDirectory: true))
            let keys = try signers(onlineKeys)
            for catalog in catalogs {
                let result = try repository.add(from: URL(fileURLWithPath: catalog, isDirectory: true), signers: keys)
                if result.written.isEmpty {
                    Output.line("\(catalog): nothing new")
                    continue
                }
                Output.line("\(catalog): published \(result.changedProducts.joined(separator: ", "))")
                report(result.written, in: directory)
            }
        }
    }

    /// `repo refresh`.
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Re-sign the online roles that are past half their lifetime (for cron).",
            discussion: HelpText.repoRefresh)

        @Argument(help: "Repository folder.")
        var directory: String

        @Option(name: .customLong("online-key"), help: "Online key file (repeatable).")
        var onlineKeys: [String] = []

        @Flag(help: "Re-sign every online role now.")
        var force = false

        mutating func run() async throws {
            let repository = TUFRepository(directory: URL(fileURLWithPath: directory, isDirectory: true))
            let written = try repository.refresh(signers: signers(onlineKeys), force: force)
            if written.isEmpty { Output.line("nothing to re-sign") }
            report(written, in: directory)
            let rootExpires = try repository.rootExpiry()
            if rootExpires.timeIntervalSinceNow < 30 * 86_400 {
                Output.note("the root expires \(CatalogDate.string(from: rootExpires)); run `iapcontent repo rotate-root` with the root keys")
            }
        }
    }

    /// `repo rotate-root`.
    struct RotateRoot: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-root",
            abstract: "Write the next root with new root keys, signed by old and new thresholds.",
            discussion: HelpText.repoRotateRoot)

        @Argument(help: "Repository folder.")
        var directory: String

        @Option(name: .customLong("old-key"), help: "Current root key file (repeatable; a threshold of them).")
        var oldKeys: [String] = []

        @Option(name: .customLong("new-key"), help: "New root key file (repeatable; every one is listed, a threshold signs).")
        var newKeys: [String] = []

        @Option(help: "Threshold of the new root keys (default: the number of new keys).")
        var newThreshold: Int?

        mutating func run() async throws {
            guard !newKeys.isEmpty else { throw ValidationError("pass the new root keys with --new-key") }
            let repository = TUFRepository(directory: URL(fileURLWithPath: directory, isDirectory: true))
            let new = try signers(newKeys)
            let url = try repository.rotateRoot(
                signers: try signers(oldKeys) + new, newRootKeys: new.map(\.key), newThreshold: newThreshold ?? new.count)
            report([url], in: directory)
        }
    }

    /// `repo key add|revoke`.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: "Add or revoke an online key of targets, snapshot, timestamp or bins.",
            discussion: HelpText.repoKey)

        enum Action: String, ExpressibleByArgument, CaseIterable { case add, revoke }
        enum Role: String, ExpressibleByArgument, CaseIterable { case targets, snapshot, timestamp, bins }

        @Argument(help: "add or revoke.")
        var action: Action

        @Argument(help: "targets, snapshot, timestamp or bins.")
        var role: Role

        @Argument(help: "Repository folder.")
        var directory: String

        @Option(help: "Key file to add, or to revoke (its key ID is taken from it).")
        var key: String?

        @Option(help: "Key ID to revoke, when its file is gone.")
        var keyID: String?

        @Option(name: .customLong("root-key"), help: "Root key file (repeatable): targets, snapshot and timestamp keys live in the root.")
        var rootKeys: [String] = []

        @Option(name: .customLong("online-key"), help: "Online key file of the changed roles (repeatable): re-signs what the change affects.")
        var onlineKeys: [String] = []

        mutating func run() async throws {
            let keyFile = try key.map { try KeyFileSigner(path: $0).key }
            var revoke: [String] = []
            var add: [MetadataKey] = []
            switch action {
            case .add:
                guard let keyFile else { throw ValidationError("pass the key file to add with --key") }
                add = [keyFile]
            case .revoke:
                guard let id = keyFile?.keyID ?? keyID else { throw ValidationError("pass --key <file> or --key-id <id> to revoke") }
                revoke = [id]
            }
            let repository = TUFRepository(directory: URL(fileURLWithPath: directory, isDirectory: true))
            let written = try repository.changeKeys(
                role: role.rawValue, add: add, revoke: revoke, rootSigners: signers(rootKeys), onlineSigners: signers(onlineKeys))
            report(written, in: directory)
        }
    }
}
