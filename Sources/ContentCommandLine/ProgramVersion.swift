/// What `iapcontent --version` prints: the release version and the commit it was built from.
package enum ProgramVersion {
    /// The release version of `iapcontent`.
    package static let release = "0.1.0"

    /// `0.1.0 (commit 1a2b3c4d5e6f)` for a shipping build (`tools/release-build` records the commit in
    /// ``ProgramCommit``), `0.1.0 (development build)` otherwise.
    package static var current: String {
        ProgramCommit.hash.isEmpty ? "\(release) (development build)" : "\(release) (commit \(ProgramCommit.hash))"
    }
}
