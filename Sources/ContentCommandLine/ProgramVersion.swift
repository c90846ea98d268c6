/// The version both executables print for `--version`.
package enum ProgramVersion {
    /// The release version of `iapcontent` and `iapcontent-serve`.
    package static let current = "0.1.0"
}
