extension ChunkingParameters {
    /// The name of the boundary algorithm ``ContentDefinedChunker`` implements, as manifests record it.
    /// A change to its gear table or masks is a new algorithm and needs a new name.
    package static let algorithmName = "gear-fastcdc-1"

    /// These parameters as a manifest records them.
    package var manifestDescription: ChunkingDescription { manifestDescription(fileGroups: nil) }

    /// These parameters, with small entries grouped into frames of at most `fileGroups` compressed bytes
    /// (``FileGroupBudget``), as a manifest records them: `gear-fastcdc-1+file-groups-<bytes>`.
    package func manifestDescription(fileGroups: FileGroupBudget?) -> ChunkingDescription {
        let name = fileGroups.map { "\(Self.algorithmName)+file-groups-\($0.frameBytes)" } ?? Self.algorithmName
        return ChunkingDescription(
            algorithm: name, minimum: Int64(minimum), average: Int64(average), maximum: Int64(maximum))
    }
}
