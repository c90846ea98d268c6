/// Where a chunk plan installs: the verified manifest it follows and the tree it writes, its plan beside it.
package struct ChunkedInstallTarget: Sendable, Equatable {
    /// The manifest the signed catalog vouches for, kept in the store (`transfers/<product>-<version>.manifest.json`).
    package var manifestPath: String
    /// The folder the files are written into (`transfers/<product>-<version>.update`), with its plan (`.delta`) and
    /// its placed-chunks log (`.placed`) beside it; it becomes the installed version.
    package var treePath: String
    /// The archive's stored dictionary as fetched, when its manifest names one (`transfers/<product>-<version>.dictionary`).
    package var dictionaryPath: String

    /// Creates a target; the dictionary's path is the manifest's, ending `.dictionary`, unless given.
    package init(manifestPath: String, treePath: String, dictionaryPath: String? = nil) {
        self.manifestPath = manifestPath
        self.treePath = treePath
        let base = manifestPath.hasSuffix(".manifest.json") ? String(manifestPath.dropLast(".manifest.json".count)) : manifestPath
        self.dictionaryPath = dictionaryPath ?? base + ".dictionary"
    }
}
