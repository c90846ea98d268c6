/// Why a ``ChunkingParameters`` value was refused.
package struct ChunkingParametersError: Error, Equatable, CustomStringConvertible {
    /// What is wrong and what is accepted, one sentence.
    package let message: String

    /// The message.
    package var description: String { message }
}
