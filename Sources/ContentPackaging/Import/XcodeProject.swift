/// The parts of an Xcode project (`project.pbxproj`) an import needs: its In-App Purchase Content targets,
/// each target's `INFOPLIST_FILE` and Resources build phase, and where each file reference lies.
///
/// A pbxproj is an old-style property list (``OldStylePropertyList``): `objects` maps identifiers to
/// dictionaries with an `isa` (`PBXProject`, `PBXNativeTarget`, `PBXResourcesBuildPhase`, `PBXBuildFile`,
/// `PBXFileReference`, `PBXGroup`, `PBXVariantGroup`, `XCConfigurationList`, `XCBuildConfiguration`), and
/// `rootObject` names the project.
struct XcodeProject {
    /// The product type of an In-App Purchase Content target.
    static let contentProductType = "com.apple.product-type.in-app-purchase-content"

    /// A file reference's place, relative to the project folder, as the project spells it (not yet normalized).
    enum Location: Equatable {
        /// Components below the project folder (may hold `..`, checked later).
        case relative([String])
        /// An absolute path (`sourceTree = "<absolute>"`).
        case absolute(String)
        /// Relative to a build location outside the project (`BUILT_PRODUCTS_DIR`, `SDKROOT`, …).
        case outside(sourceTree: String)
    }

    /// One file the Resources build phase copies, and where in `Contents/` it goes.
    struct Resource: Equatable {
        /// The file reference's own location.
        var location: Location
        /// The path below `Contents/` (`levels.json`, `en.lproj/ContentInfo.strings`).
        var destination: String
        /// How the project names it, for messages.
        var display: String
    }

    private let objects: [String: [String: OldStylePropertyList]]
    private let project: [String: OldStylePropertyList]
    /// Parent group of every group child.
    private let parents: [String: String]

    /// Reads the parsed pbxproj.
    ///
    /// - Throws: a message saying which part of the project is missing or malformed.
    init(_ plist: OldStylePropertyList) throws(XcodeProjectError) {
        guard let root = plist.dictionary, let objectValues = root["objects"]?.dictionary,
              let rootID = root["rootObject"]?.string
        else { throw XcodeProjectError("has no 'objects' or 'rootObject'; is it a project.pbxproj?") }
        var objects: [String: [String: OldStylePropertyList]] = [:]
        for (id, value) in objectValues {
            if let dictionary = value.dictionary { objects[id] = dictionary }
        }
        guard let project = objects[rootID], project["isa"]?.string == "PBXProject" else {
            throw XcodeProjectError("its rootObject \(rootID) is not a PBXProject")
        }
        var parents: [String: String] = [:]
        for (id, object) in objects where ["PBXGroup", "PBXVariantGroup"].contains(object["isa"]?.string ?? "") {
            for child in object["children"]?.array ?? [] {
                if let childID = child.string { parents[childID] = id }
            }
        }
        self.objects = objects
        self.project = project
        self.parents = parents
    }

    /// `projectDirPath`, the folder the project's paths start from, relative to the folder holding the `.xcodeproj`.
    var projectDirPath: String { project["projectDirPath"]?.string ?? "" }

    /// Names of the project's In-App Purchase Content targets, in the project's order.
    var contentTargets: [String] {
        targetIDs.compactMap { id in
            guard objects[id]?["productType"]?.string == Self.contentProductType else { return nil }
            return objects[id]?["name"]?.string
        }
    }

    private var targetIDs: [String] { (project["targets"]?.array ?? []).compactMap(\.string) }

    /// The identifier of the content target named `name`.
    func target(named name: String) -> String? {
        targetIDs.first { objects[$0]?["name"]?.string == name && objects[$0]?["productType"]?.string == Self.contentProductType }
    }

    /// The target's `INFOPLIST_FILE` (Release configuration first, then the first one, then the project's).
    func infoPlistFile(target: String) -> String? {
        for list in [objects[target]?["buildConfigurationList"]?.string, project["buildConfigurationList"]?.string] {
            guard let list, let configurations = objects[list]?["buildConfigurations"]?.array?.compactMap(\.string) else { continue }
            let ordered = configurations.sorted { lhs, _ in objects[lhs]?["name"]?.string == "Release" }
            for id in ordered {
                if let file = objects[id]?["buildSettings"]?.dictionary?["INFOPLIST_FILE"]?.string, !file.isEmpty { return file }
            }
        }
        return nil
    }

    /// Every file the target's Resources build phases copy.
    ///
    /// - Throws: when a build file names an object that is not there, or of a kind Xcode does not copy.
    func resources(target: String) throws(XcodeProjectError) -> [Resource] {
        var result: [Resource] = []
        for phaseID in (objects[target]?["buildPhases"]?.array ?? []).compactMap(\.string)
        where objects[phaseID]?["isa"]?.string == "PBXResourcesBuildPhase" {
            for buildFileID in (objects[phaseID]?["files"]?.array ?? []).compactMap(\.string) {
                guard let referenceID = objects[buildFileID]?["fileRef"]?.string, let reference = objects[referenceID] else {
                    throw XcodeProjectError("build file \(buildFileID) of the Resources phase names no file")
                }
                result += try resources(of: referenceID, reference)
            }
        }
        return result
    }

    private func resources(of id: String, _ reference: [String: OldStylePropertyList]) throws(XcodeProjectError) -> [Resource] {
        switch reference["isa"]?.string {
        case "PBXFileReference":
            let location = try location(of: id)
            let name = Self.lastComponent(location) ?? reference["name"]?.string ?? id
            return [Resource(location: location, destination: name, display: display(of: id))]
        case "PBXVariantGroup":
            // A localized resource: each child is one language's file, copied to Contents/<lang>.lproj/<name>.
            let groupName = reference["name"]?.string ?? reference["path"]?.string ?? id
            return try (reference["children"]?.array ?? []).compactMap(\.string).map { childID throws(XcodeProjectError) in
                let location = try location(of: childID)
                let folder = Self.parentComponent(location).flatMap { $0.hasSuffix(".lproj") ? $0 : nil }
                    ?? "\(objects[childID]?["name"]?.string ?? "Base").lproj"
                let name = Self.lastComponent(location) ?? groupName
                return Resource(location: location, destination: folder + "/" + name, display: display(of: childID))
            }
        default:
            throw XcodeProjectError("\(display(of: id)) in the Resources phase is a \(reference["isa"]?.string ?? "?"), which Xcode does not copy")
        }
    }

    /// Where the object `id` lies, following its groups up to the project folder.
    func location(of id: String) throws(XcodeProjectError) -> Location {
        var components: [String] = []
        var current = id
        var seen: Set<String> = []
        while true {
            guard seen.insert(current).inserted else { throw XcodeProjectError("groups around \(display(of: id)) form a cycle") }
            let object = objects[current] ?? [:]
            let path = object["path"]?.string ?? ""
            components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) + components
            switch object["sourceTree"]?.string ?? "<group>" {
            case "<group>":
                guard let parent = parents[current] else { return .relative(components) }  // the main group
                if path.hasPrefix("/") { return .absolute("/" + components.joined(separator: "/")) }
                current = parent
            case "SOURCE_ROOT":
                return path.hasPrefix("/") ? .absolute("/" + components.joined(separator: "/")) : .relative(components)
            case "<absolute>":
                return .absolute("/" + components.joined(separator: "/"))
            case let other:
                return .outside(sourceTree: other)
            }
        }
    }

    /// How the project shows object `id`: its name, else its path.
    func display(of id: String) -> String {
        objects[id]?["name"]?.string ?? objects[id]?["path"]?.string ?? id
    }

    private static func lastComponent(_ location: Location) -> String? {
        switch location {
        case .relative(let components): components.last
        case .absolute(let path): path.split(separator: "/").last.map(String.init)
        case .outside: nil
        }
    }

    private static func parentComponent(_ location: Location) -> String? {
        switch location {
        case .relative(let components): components.dropLast().last
        case .absolute(let path): path.split(separator: "/").dropLast().last.map(String.init)
        case .outside: nil
        }
    }
}

/// Why a pbxproj cannot be read as a project.
struct XcodeProjectError: Error {
    /// What is wrong, read after the pbxproj's path.
    var message: String
    init(_ message: String) { self.message = message }
}
