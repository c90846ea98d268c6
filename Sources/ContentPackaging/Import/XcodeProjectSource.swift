import Foundation
import Glibc

/// An Xcode project holding an In-App Purchase Content target: its `ContentInfo.plist` (`INFOPLIST_FILE`)
/// and the files of its Resources build phase, copied as Xcode copies them (`Contents/<name>`, localized
/// files to `Contents/<lang>.lproj/<name>`, folder references whole). Nothing needs to be built.
///
/// Every path the project names must lie inside the project folder (the folder holding the `.xcodeproj`,
/// or its `projectDirPath`) without passing through a symbolic link; a path relative to a build location
/// (`BUILT_PRODUCTS_DIR`, `SDKROOT`, …) or outside the folder is refused. Files Xcode compiles while it
/// builds (interface files, asset catalogs, models, shaders, string catalogs) cannot be copied as they are
/// and are refused: build the target and import the built folder instead.
enum XcodeProjectSource {
    /// Extensions of resources Xcode compiles or converts (ibtool, actool, momc, metal, xcstringstool, …).
    static let compiledExtensions: Set<String> = [
        "xib", "storyboard", "xcassets", "xcdatamodel", "xcdatamodeld", "xcmappingmodel", "metal", "xcstrings",
        "intentdefinition", "rcproject", "scnassets", "mlmodel", "mlpackage", "iconset", "nib",
    ]
    /// Largest pbxproj read.
    static let maxProjectBytes = 64 << 20

    /// The `.xcodeproj` folder `source` is or holds (exactly one), or `nil` when it holds none.
    static func projectBundle(in source: URL) throws(ImportError) -> URL? {
        if source.pathExtension == "xcodeproj" { return source }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: source.path)) ?? []
        let projects = names.filter { $0.hasSuffix(".xcodeproj") }.sorted()
        guard projects.count <= 1 else {
            throw .unreadableSource(
                path: source.path, reason: "holds several Xcode projects (\(projects.joined(separator: ", "))); name the .xcodeproj to import")
        }
        return projects.first.map { source.appendingPathComponent($0, isDirectory: true) }
    }

    /// Reads the project's content target into `staging`.
    ///
    /// - Parameter targetName: the target to import when the project has several.
    static func read(
        bundle: URL, targetName: String?, into staging: inout ImportStaging
    ) throws(ImportError) {
        let pbxprojURL = bundle.appendingPathComponent("project.pbxproj")
        let display = bundle.lastPathComponent + "/project.pbxproj"
        let project = try parse(pbxprojURL, display: display)
        let target = try chooseTarget(in: project, named: targetName, display: display)
        guard let holder = realFolder(bundle.deletingLastPathComponent(), appending: ""),
              let folder = realFolder(bundle.deletingLastPathComponent(), appending: project.projectDirPath),
              folder == holder || folder.hasPrefix(holder + "/")
        else {
            throw .unreadableSource(
                path: display,
                reason: "its projectDirPath '\(project.projectDirPath)' is not a folder inside the one holding the project")
        }
        guard let infoPlist = project.infoPlistFile(target: target) else {
            throw .unreadableSource(
                path: display, reason: "the content target sets no INFOPLIST_FILE; set it to its ContentInfo.plist in Xcode")
        }
        let plistLocation = infoPlistLocation(infoPlist)
        if let path = resolve(plistLocation, in: folder, display: "\(display): INFOPLIST_FILE \(infoPlist)", staging: &staging) {
            try DiskEntries.add(Array(path.utf8), as: Array(ContentInfo.fileName.utf8), origin: path, to: &staging)
        }
        try staging.add(
            ArchiveEntryHeader(pathBytes: Array(PackageValidator.contentsDirectoryName.utf8), kind: .directory, size: 0, permissions: 0o755),
            origin: PackageValidator.contentsDirectoryName) { _ throws(ImportError) in }
        let resources: [XcodeProject.Resource]
        do { resources = try project.resources(target: target) } catch {
            throw .unreadableSource(path: display, reason: error.message)
        }
        for resource in resources {
            let origin = "\(display): \(resource.display)"
            guard let path = resolve(resource.location, in: folder, display: origin, staging: &staging) else { continue }
            let fileExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
            if compiledExtensions.contains(fileExtension) {
                staging.refuse(
                    origin,
                    reason: "Xcode compiles .\(fileExtension) files while it builds; build the target in Xcode and import the built folder")
                continue
            }
            try DiskEntries.add(
                Array(path.utf8), as: Array("\(PackageValidator.contentsDirectoryName)/\(resource.destination)".utf8),
                origin: path, to: &staging)
        }
    }

    private static func parse(_ url: URL, display: String) throws(ImportError) -> XcodeProject {
        let bytes: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            bytes = [UInt8](try handle.read(upToCount: maxProjectBytes + 1) ?? Data())
        } catch {
            throw .unreadableSource(path: display, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard bytes.count <= maxProjectBytes else {
            throw .unreadableSource(path: display, reason: "is larger than \(maxProjectBytes) bytes")
        }
        do {
            return try XcodeProject(OldStylePropertyList.parse(bytes))
        } catch let error as OldStylePropertyListError {
            throw .unreadableSource(path: display, reason: "is not a valid old-style property list (\(error)); open and save the project in Xcode")
        } catch let error as XcodeProjectError {
            throw .unreadableSource(path: display, reason: error.message)
        } catch {
            throw .unreadableSource(path: display, reason: "\(error)")
        }
    }

    private static func chooseTarget(in project: XcodeProject, named name: String?, display: String) throws(ImportError) -> String {
        let names = project.contentTargets
        if let name {
            guard let id = project.target(named: name) else {
                throw .unreadableSource(
                    path: display,
                    reason: "has no In-App Purchase Content target named '\(name)' (it has: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
            }
            return id
        }
        guard !names.isEmpty else {
            throw .unreadableSource(
                path: display, reason: "has no In-App Purchase Content target (product type \(XcodeProject.contentProductType))")
        }
        guard names.count == 1, let id = project.target(named: names[0]) else {
            throw .unreadableSource(
                path: display, reason: "has several content targets (\(names.joined(separator: ", "))); choose one with --target")
        }
        return id
    }

    /// `INFOPLIST_FILE` as a location: relative to the project folder, `$(SRCROOT)`/`$(PROJECT_DIR)` allowed.
    private static func infoPlistLocation(_ setting: String) -> XcodeProject.Location {
        var value = setting
        for variable in ["$(SRCROOT)", "$(PROJECT_DIR)", "${SRCROOT}", "${PROJECT_DIR}", "$SRCROOT", "$PROJECT_DIR"]
        where value.hasPrefix(variable) {
            value = String(value.dropFirst(variable.count))
            if value.hasPrefix("/") { value.removeFirst() }
            return .relative(value.split(separator: "/").map(String.init))
        }
        if value.contains("$") { return .outside(sourceTree: setting) }
        if value.hasPrefix("/") { return .absolute(value) }
        return .relative(value.split(separator: "/").map(String.init))
    }

    /// The absolute path of `location`, or `nil` after recording why it is refused: outside the project
    /// folder (lexically, or through a symbolic link on the way) or relative to a build location.
    private static func resolve(
        _ location: XcodeProject.Location, in folder: String, display: String, staging: inout ImportStaging
    ) -> String? {
        let lexical: String
        switch location {
        case .outside(let tree):
            staging.refuse(display, reason: "lies in '\(tree)', outside the project folder; move it into the project")
            return nil
        case .absolute(let path):
            lexical = normalized(path)
        case .relative(let components):
            lexical = normalized(folder + "/" + components.joined(separator: "/"))
        }
        guard lexical.hasPrefix(folder + "/") else {
            staging.refuse(display, reason: "points outside the project folder \(folder) (to \(lexical)); move it into the project")
            return nil
        }
        let parent = String(lexical[..<lexical.lastIndex(of: "/")!])
        guard let real = realFolder(URL(fileURLWithPath: parent), appending: ""), real == parent else {
            staging.refuse(
                display,
                reason: "its folder \(parent) is missing or reached through a symbolic link (which could lead outside the project); replace the link with the folder")
            return nil
        }
        return lexical
    }

    /// `path` with `.` and `..` components applied (a `..` at the root stays at the root).
    private static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
            } else {
                parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `realpath` of `base/relative`, or `nil` when it is not a folder.
    private static func realFolder(_ base: URL, appending relative: String) -> String? {
        let path = relative.isEmpty ? base.path : base.path + "/" + relative
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        var info = stat()
        let result = String(cString: resolved)
        guard stat(result, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return result
    }
}
