/// Where a chunk plan installs: the verified manifest it follows and the tree it writes, its plan beside it.
package struct ChunkedInstallTarget: Sendable, Equatable {
    /// The manifest the signed catalog vouches for, kept in the store (`transfers/<product>-<version>.manifest.json`).
    package var manifestPath: String
    /// The folder the files are written into (`transfers/<product>-<version>.update`), with its plan (`.delta`) and
    /// its placed-chunks log (`.placed`) beside it; it becomes the installed version.
    package var treePath: String
    /// The archive's stored dictionary as fetched, when its manifest names one (`transfers/<product>-<version>.dictionary`).
    package var dictionaryPath: String { Self.dictionaryPath(forManifest: manifestPath) }

    /// Creates a target.
    package init(manifestPath: String, treePath: String) {
        self.manifestPath = manifestPath
        self.treePath = treePath
    }

    /// Where the dictionary of the archive a kept manifest describes is kept: beside it, `.manifest.json` becoming
    /// `.dictionary` — the one rule the store and a resumed download share.
    package static func dictionaryPath(forManifest path: String) -> String {
        (path.hasSuffix(".manifest.json") ? String(path.dropLast(".manifest.json".count)) : path) + ".dictionary"
    }
}
