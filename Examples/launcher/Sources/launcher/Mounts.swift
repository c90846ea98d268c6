import Foundation

/// Makes installed content available where the launcher's games look for it: `<mounts>/<productID>` is a symbolic
/// link to the product's `contentURL`, replaced atomically (a new link renamed over the old one), and removed when
/// the content is withdrawn.
struct Mounts {
    let folder: URL

    /// Points `<mounts>/<productID>` at `content`.
    func mount(_ productID: String, at content: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent(productID)
        let fresh = folder.appendingPathComponent(".\(productID).\(getpid())")
        try? FileManager.default.removeItem(at: fresh)
        try FileManager.default.createSymbolicLink(at: fresh, withDestinationURL: content)
        guard rename(fresh.path, link.path) == 0 else { throw LauncherError("cannot mount \(productID) at \(link.path)") }
    }

    /// Removes `<mounts>/<productID>` if it is there.
    func unmount(_ productID: String) {
        unlink(folder.appendingPathComponent(productID).path)
    }
}
