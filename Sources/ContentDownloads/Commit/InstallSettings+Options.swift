extension InstallSettings {
    /// The extraction's part of an install's options.
    init(_ options: ContentInstaller.Options) {
        self.init(spacePreflight: options.spacePreflight, observer: options.observer)
    }
}
