/// What an extraction needs of the caller's ``ContentInstaller/Options``: its space check and its phase
/// observer. Extraction (this stage) runs before the commit that owns the options, so it takes only these.
struct InstallSettings: Sendable {
    /// Free-space check before extraction; `nil` skips it.
    var spacePreflight: SpacePreflight?
    /// Receives `extracting`.
    var observer: (any InstallPhaseObserver)?
}
