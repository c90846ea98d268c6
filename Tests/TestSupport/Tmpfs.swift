public import Foundation
public import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Small tmpfs mounts for the tests that must run out of disk space.
///
/// Where a tmpfs cannot be mounted (no root, no `CAP_SYS_ADMIN`), such a test is skipped visibly (the
/// ``Testing/Trait/needsTmpfs`` trait, reported as skipped with its reason) — unless the environment variable
/// `CI` is set: there every test runs, so a mount that fails is a failure, never a silent pass.
public enum Tmpfs {
    /// The environment variable that makes every mount fail, to exercise the skip (and, with `CI` set, the failure)
    /// where mounting works.
    public static let simulateFailureVariable = "IAPCONTENT_TEST_NO_TMPFS"

    /// Whether `CI` is set (to anything but empty, `0` or `false`).
    public static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"] else { return false }
        return !["", "0", "false", "no"].contains(value.lowercased())
    }

    /// Why a tmpfs cannot be mounted here, or nil when it can: probed once, by mounting and unmounting one.
    public static let unavailableReason: String? = {
        do {
            let probe = try TmpfsMount(size: "64k")
            guard probe.unmount() else { return "the probe tmpfs at \(probe.url.path) could not be unmounted" }
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// Whether the disk-full tests run: a tmpfs can be mounted, or `CI` is set (they run and fail).
    public static var testsRun: Bool {
        guard let reason = unavailableReason else { return true }
        reportOnce(reason)
        return isCI
    }

    private static let reported = Mutex(false)

    private static func reportOnce(_ reason: String) {
        let first = reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard first else { return }
        let outcome = isCI ? "CI is set: the disk-full tests run and fail" : "the disk-full tests are skipped"
        FileHandle.standardError.write(Data("Tmpfs: cannot mount a tmpfs here (\(reason)); \(outcome)\n".utf8))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where a small tmpfs can be mounted (root or `CAP_SYS_ADMIN`), otherwise reports it as
    /// skipped; with `CI` set it always runs, so a tmpfs that cannot be mounted fails it instead.
    public static var needsTmpfs: Self {
        .enabled("needs to mount a small tmpfs (root or CAP_SYS_ADMIN); with CI set it runs, and fails, anyway") {
            Tmpfs.testsRun
        }
    }
}

/// A tmpfs of a given size mounted on a folder of its own, `<temp dir>/iapcontent-tmpfs-XXXXXX` (unique per mount,
/// outside every fixture's folder so that removing a fixture never meets a mount).
///
/// Call ``unmount()`` in a `defer` right after mounting: it unmounts (lazily if the file system is still busy,
/// e.g. a store's journal not yet closed after a failed expectation) and removes the folder. `deinit` does the
/// same as a last resort.
public final class TmpfsMount: Sendable {
    /// The mount point.
    public let url: URL
    /// The mount point's path.
    public var path: String { url.path }
    private let mounted = Mutex(true)

    /// Mounts a tmpfs of `size` (`mount -o size=`, e.g. `"4m"`) on a new folder.
    /// - Throws: ``TestSupportError`` naming the reason when it cannot be mounted (or when
    ///   ``Tmpfs/simulateFailureVariable`` is set).
    public init(size: String) throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true).resolvingSymlinksInPath()
        var template = Array(parent.appendingPathComponent("iapcontent-tmpfs-XXXXXX").path.utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestSupportError("mkdtemp for a tmpfs mount point: errno \(errno)")
        }
        let url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        if ProcessInfo.processInfo.environment[Tmpfs.simulateFailureVariable].map({ !$0.isEmpty }) == true {
            rmdir(url.path)
            throw TestSupportError("cannot mount a \(size) tmpfs: \(Tmpfs.simulateFailureVariable) is set")
        }
        let result: CommandRunner.Result
        do {
            result = try CommandRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", url.path])
        } catch {
            rmdir(url.path)
            throw TestSupportError("cannot run /bin/mount: \(error)")
        }
        guard result.status == 0 else {
            rmdir(url.path)
            let output = (result.stderr + result.stdout).trimmingCharacters(in: .whitespacesAndNewlines)
            throw TestSupportError("cannot mount a \(size) tmpfs at \(url.path): mount exited \(result.status): \(output)")
        }
        self.url = url
    }

    /// `url/relative`.
    public func appending(_ relative: String, isDirectory: Bool = false) -> URL {
        url.appendingPathComponent(relative, isDirectory: isDirectory)
    }

    /// Unmounts and removes the mount point (idempotent). A file system still in use (a file left open by a test
    /// that failed half-way) is given a moment, then detached lazily (`umount -l`: gone from the mount table at
    /// once, freed when its last file closes). Records an issue when it stays mounted.
    /// - Returns: whether it is unmounted.
    @discardableResult
    public func unmount() -> Bool {
        let wasMounted = mounted.withLock { mounted in
            defer { mounted = false }
            return mounted
        }
        guard wasMounted else { return true }
        var unmounted = false
        var lastError = ""
        for attempt in 0..<20 {  // up to ~1 s: a store is often released just after the test's last use of it
            if attempt > 0 { usleep(50_000) }
            let result = try? CommandRunner.run("/bin/umount", [url.path])
            if result?.status == 0 {
                unmounted = true
                break
            }
            lastError = result?.stderr.trimmingCharacters(in: .whitespacesAndNewlines) ?? "cannot run /bin/umount"
            guard isMounted else {
                unmounted = true
                break
            }
        }
        if !unmounted {
            let lazy = try? CommandRunner.run("/bin/umount", ["-l", url.path])
            unmounted = lazy?.status == 0 || !isMounted
            if unmounted {
                FileHandle.standardError.write(Data("TmpfsMount: \(url.path) was busy (\(lastError)); detached lazily\n".utf8))
            }
        }
        guard unmounted else {
            Issue.record(Comment(rawValue: "the tmpfs at \(url.path) is still mounted: \(lastError)"))
            return false
        }
        if rmdir(url.path) != 0 {
            Issue.record(Comment(rawValue: "cannot remove the tmpfs mount point \(url.path): errno \(errno)"))
        }
        return true
    }

    /// Whether `url` is a mount point in `/proc/self/mounts` right now.
    private var isMounted: Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return true }
        // Spaces in mount points appear as \040; ours never have any.
        return table.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first == Substring(url.path) }
    }

    deinit {
        unmount()
    }
}
