/// Why a store could not be driven.
public enum DriverLockError: Error, Sendable, CustomStringConvertible {
    /// Another process drives the store.
    case busy(store: String, pid: Int32?)
    /// The lock file could not be created.
    case io(path: String, reason: String)

    /// Words with the next step.
    public var description: String {
        switch self {
        case .busy(let store, let pid):
            "store \(store) is being driven by pid \(pid.map(String.init) ?? "?"); use pause/resume/cancel, or wait"
        case .io(let path, let reason):
            "cannot create the driver lock \(path): \(reason); check the store folder's permissions"
        }
    }
}
