extension ChunkingParameters {
    /// The name of the boundary algorithm ``ContentDefinedChunker`` implements, as manifests record it.
    /// A change to its gear table or masks is a new algorithm and needs a new name.
    package static let algorithmName = "gear-fastcdc-1"

    /// These parameters as a manifest records them.
    package var manifestDescription: ChunkingDescription {
        ChunkingDescription(
            algorithm: Self.algorithmName, minimum: Int64(minimum), average: Int64(average), maximum: Int64(maximum))
    }
}
