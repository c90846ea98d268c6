import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

/// Where the download store lives when no one says: the first of `--store`, `IAPCONTENT_STORE`,
/// `$XDG_DATA_HOME/iapcontent`, `~/.local/share/iapcontent`.
struct StoreLocation: Sendable, Equatable {
    /// The store folder (absolute).
    var url: URL
    /// Which rule chose it, for `--verbose` and error messages.
    var source: Source

    /// The rule that chose a store folder, in precedence order.
    enum Source: String, Sendable { case flag = "--store", environment = "IAPCONTENT_STORE", xdgDataHome = "XDG_DATA_HOME", home = "~/.local/share" }

    /// Resolves the store folder; relative paths are taken from `currentDirectory`.
    static func resolve(
        flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        home: String = NSHomeDirectory(), currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> StoreLocation {
        func absolute(_ path: String) -> URL {
            let expanded = path == "~" ? home : (path.hasPrefix("~/") ? home + path.dropFirst(1) : path)
            let base = URL(fileURLWithPath: currentDirectory, isDirectory: true)
            return URL(fileURLWithPath: expanded, isDirectory: true, relativeTo: base).standardizedFileURL
        }
        if let flag, !flag.isEmpty { return StoreLocation(url: absolute(flag), source: .flag) }
        if let value = environment["IAPCONTENT_STORE"], !value.isEmpty {
            return StoreLocation(url: absolute(value), source: .environment)
        }
        // The XDG spec: a relative XDG_DATA_HOME is invalid and must be ignored.
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return StoreLocation(url: absolute(data).appendingPathComponent("iapcontent", isDirectory: true), source: .xdgDataHome)
        }
        return StoreLocation(
            url: absolute(home).appendingPathComponent(".local/share/iapcontent", isDirectory: true), source: .home)
    }
}

/// `--store <dir>` as an option group: `@OptionGroup var store: StoreLocationOptions`, then `store.location.url`.
struct StoreLocationOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store folder: journal, partial and verified archives, installed content.",
            discussion: "Default: $IAPCONTENT_STORE, else $XDG_DATA_HOME/iapcontent, else ~/.local/share/iapcontent.",
            valueName: "dir"))
    var path: String?

    /// The resolved store folder.
    var location: StoreLocation { StoreLocation.resolve(flag: path) }

    /// Resolves the store folder once and opens it (creating its folders): the one ``Store`` a command
    /// hands to every part it uses. A store that cannot be created is a message and exit status 1.
    func openStore() throws -> Store {
        let url = location.url
        do { return try Store(root: url) } catch {
            Output.error("cannot open the store \(url.path): \(error.description)", code: "storeUnreadable")
            throw ExitStatus.failure
        }
    }
}
