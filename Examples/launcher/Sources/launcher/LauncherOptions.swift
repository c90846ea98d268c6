import Foundation

/// What the launcher is told on its command line (kept to plain `CommandLine.arguments` so the example shows the
/// library, not an argument parser).
struct LauncherOptions {
    /// Where installed content and its bookkeeping live.
    var store = ""
    /// The signed catalog.
    var catalog = ""
    /// The signed entitlements document of this customer (proactive restore).
    var entitlements = ""
    /// The publisher's Ed25519 public key (base64), pinned for both documents.
    var publicKey = ""
    /// Where each installed product is made available as a symbolic link `<mounts>/<productID>`.
    var mounts = ""
    /// Bytes per second for all downloads together (0 = no cap).
    var maxRate: Int64 = 0
    /// Exit once everything entitled is installed, instead of serving until SIGTERM.
    var once = false

    /// Parses `--store DIR --catalog URL --entitlements URL --public-key KEY --mounts DIR [--max-rate N] [--once]`.
    static func parse(_ arguments: [String]) throws -> LauncherOptions {
        var options = LauncherOptions()
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            if flag == "--once" {
                options.once = true
                continue
            }
            guard let value = rest.popFirst() else { throw LauncherError("\(flag) needs a value") }
            switch flag {
            case "--store": options.store = value
            case "--catalog": options.catalog = value
            case "--entitlements": options.entitlements = value
            case "--public-key": options.publicKey = value
            case "--mounts": options.mounts = value
            case "--max-rate": options.maxRate = Int64(value) ?? 0
            default: throw LauncherError("unknown option \(flag)")
            }
        }
        for (name, value) in [("--store", options.store), ("--catalog", options.catalog),
                              ("--entitlements", options.entitlements), ("--public-key", options.publicKey),
                              ("--mounts", options.mounts)] where value.isEmpty {
            throw LauncherError("\(name) is required")
        }
        return options
    }
}

/// A usage or start-up problem, printed as is.
struct LauncherError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
