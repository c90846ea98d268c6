extension DownloadError.Code {
    /// The verified archive could not be installed (unsafe, wrong content, file system trouble).
    public static let install = DownloadError.Code(rawValue: "install")
}

extension DownloadError {
    /// The download error an install failure becomes (`insufficientSpace` keeps its code and numbers).
    public static func install(_ error: InstallError, store: String) -> DownloadError {
        switch error {
        case .insufficientSpace(let needed, let available):
            DownloadError(
                code: .insufficientSpace,
                message: "not enough disk space in \(store) to install: \(needed) bytes needed, \(available) available (\(max(0, needed - available)) more); free some space and run the command again — the verified archive is kept, and reopening the store installs it without downloading again")
        default:
            DownloadError(code: Code(error), message: "cannot install: \(error.description)")
        }
    }
}

