/// Where a chunk plan installs: the verified manifest it follows and the tree it writes, its plan beside it.
package struct ChunkedInstallTarget: Sendable, Equatable {
    /// The manifest the signed catalog vouches for, kept in the store (`transfers/<product>-<version>.manifest.json`).
    package var manifestPath: String
    /// The folder the files are written into (`transfers/<product>-<version>.update`), with its plan (`.delta`) and
    /// its placed-chunks log (`.placed`) beside it; it becomes the installed version.
    package var treePath: String

    /// Creates a target.
    package init(manifestPath: String, treePath: String) {
        self.manifestPath = manifestPath
        self.treePath = treePath
    }
}
