/// The commit a shipping build was made from: `tools/release-build` writes the hash into its own copy of this file
/// (in `.build/shipping`), so the checkout's file always says none and a development build says so. A source file rather than a link-time symbol: the compiler sees a constant, and two builds of one commit
/// compile the same text, which keeps the build reproducible.
package enum ProgramCommit {
    /// The full commit hash (`git rev-parse HEAD`, `-dirty` appended for uncommitted changes); empty when unknown.
    package static let hash = ""
}
