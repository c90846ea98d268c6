public import Foundation

/// An Xcode project with an In-App Purchase Content target, made from a content folder: the target's
/// files in `<root>/<Name>/` (no `Contents/` on disk) and `<root>/<Name>.xcodeproj/project.pbxproj`
/// written the way Xcode writes it (sections, name comments, tabs).
///
/// Under `Contents/` of the folder, a `<lang>.lproj/` folder's files become variant groups (one per file
/// name, a child per language), another folder becomes a folder reference, and a file a file reference;
/// all go into the target's Resources build phase. `ContentInfo.plist` is the target's `INFOPLIST_FILE`.
public struct XcodeProjectFixture {
    /// A file reference added to the Resources phase as given (for hostile projects).
    public struct Reference: Sendable {
        /// `path` of the reference.
        public var path: String
        /// `sourceTree` (`<group>`, `SOURCE_ROOT`, `<absolute>`, `SDKROOT`, …).
        public var sourceTree: String

        /// Creates a reference.
        public init(path: String, sourceTree: String = "<group>") {
            self.path = path
            self.sourceTree = sourceTree
        }
    }

    /// The folder holding the project.
    public let root: URL
    /// The target's name (and the group folder's).
    public let name: String

    /// The `.xcodeproj` folder.
    public var bundle: URL { root.appendingPathComponent("\(name).xcodeproj") }

    /// Writes the project for the content folder `content` under `root`.
    ///
    /// - Parameters:
    ///   - extra: more file references for the Resources phase, in the target's group.
    ///   - infoPlistFile: `INFOPLIST_FILE` (default `<Name>/ContentInfo.plist`).
    public init(content: URL, root: URL, name: String = "Levels", extra: [Reference] = [], infoPlistFile: String? = nil) throws {
        self.root = root
        self.name = name
        let manager = FileManager.default
        let group = root.appendingPathComponent(name)
        try manager.createDirectory(at: group, withIntermediateDirectories: true)
        try manager.createDirectory(at: bundle, withIntermediateDirectories: true)
        try manager.copyItem(at: content.appendingPathComponent("ContentInfo.plist"), to: group.appendingPathComponent("ContentInfo.plist"))
        var objects = Objects()
        var groupChildren: [String] = []
        var resources: [(reference: String, name: String)] = []
        let contents = content.appendingPathComponent("Contents")
        var variants: [String: [(language: String, path: String)]] = [:]
        for item in try manager.contentsOfDirectory(atPath: contents.path).sorted() {
            let source = contents.appendingPathComponent(item)
            try manager.copyItem(at: source, to: group.appendingPathComponent(item))
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: source.path, isDirectory: &isDirectory)
            if item.hasSuffix(".lproj"), isDirectory.boolValue {
                let language = String(item.dropLast(6))
                for file in try manager.contentsOfDirectory(atPath: source.path).sorted() {
                    variants[file, default: []].append((language, "\(item)/\(file)"))
                }
                continue
            }
            let type = isDirectory.boolValue ? "folder" : "file"
            let reference = objects.add(
                "\(item)", "{isa = PBXFileReference; lastKnownFileType = \(type); path = \(Self.quoted(item)); sourceTree = \"<group>\"; }")
            groupChildren.append(reference)
            resources.append((reference, item))
        }
        for (file, children) in variants.sorted(by: { $0.key < $1.key }) {
            var childIDs: [String] = []
            for child in children {
                childIDs.append(objects.add(
                    child.language,
                    "{isa = PBXFileReference; lastKnownFileType = text.plist.strings; name = \(child.language); path = \(Self.quoted(child.path)); sourceTree = \"<group>\"; }"))
            }
            let variant = objects.add(
                file, "{isa = PBXVariantGroup; children = (\(childIDs.map { "\($0), " }.joined())); name = \(Self.quoted(file)); sourceTree = \"<group>\"; }")
            groupChildren.append(variant)
            resources.append((variant, file))
        }
        for reference in extra {
            let id = objects.add(
                reference.path,
                "{isa = PBXFileReference; lastKnownFileType = file; path = \(Self.quoted(reference.path)); sourceTree = \(Self.quoted(reference.sourceTree)); }")
            groupChildren.append(id)
            resources.append((id, reference.path))
        }
        let plistReference = objects.add(
            "ContentInfo.plist", "{isa = PBXFileReference; lastKnownFileType = text.plist.xml; path = ContentInfo.plist; sourceTree = \"<group>\"; }")
        groupChildren.insert(plistReference, at: 0)
        var buildFiles: [String] = []
        for resource in resources {
            buildFiles.append(objects.add("\(resource.name) in Resources", "{isa = PBXBuildFile; fileRef = \(resource.reference) /* \(resource.name) */; }"))
        }
        let product = objects.add("\(name)", "{isa = PBXFileReference; explicitFileType = wrapper.in-app-purchase-content; includeInIndex = 0; path = \(name); sourceTree = BUILT_PRODUCTS_DIR; }")
        let targetGroup = objects.add(name, "{isa = PBXGroup; children = (\(groupChildren.map { "\($0), " }.joined())); path = \(Self.quoted(name)); sourceTree = \"<group>\"; }")
        let productsGroup = objects.add("Products", "{isa = PBXGroup; children = (\(product), ); name = Products; sourceTree = \"<group>\"; }")
        let mainGroup = objects.add("", "{isa = PBXGroup; children = (\(targetGroup), \(productsGroup), ); sourceTree = \"<group>\"; }")
        let phase = objects.add("Resources", "{isa = PBXResourcesBuildPhase; buildActionMask = 2147483647; files = (\(buildFiles.map { "\($0), " }.joined())); runOnlyForDeploymentPostprocessing = 0; }")
        let plistSetting = Self.quoted(infoPlistFile ?? "\(name)/ContentInfo.plist")
        let debug = objects.add("Debug", "{isa = XCBuildConfiguration; buildSettings = {INFOPLIST_FILE = \(plistSetting); PRODUCT_NAME = \"$(TARGET_NAME)\"; }; name = Debug; }")
        let release = objects.add("Release", "{isa = XCBuildConfiguration; buildSettings = {INFOPLIST_FILE = \(plistSetting); PRODUCT_NAME = \"$(TARGET_NAME)\"; }; name = Release; }")
        let targetConfigurations = objects.add("Build configuration list for PBXNativeTarget \"\(name)\"", "{isa = XCConfigurationList; buildConfigurations = (\(debug), \(release), ); defaultConfigurationIsVisible = 0; defaultConfigurationName = Release; }")
        let projectDebug = objects.add("Debug", "{isa = XCBuildConfiguration; buildSettings = {SDKROOT = iphoneos; }; name = Debug; }")
        let projectConfigurations = objects.add("Build configuration list for PBXProject \"\(name)\"", "{isa = XCConfigurationList; buildConfigurations = (\(projectDebug), ); defaultConfigurationIsVisible = 0; defaultConfigurationName = Debug; }")
        let target = objects.add(name, "{isa = PBXNativeTarget; buildConfigurationList = \(targetConfigurations); buildPhases = (\(phase), ); buildRules = (); dependencies = (); name = \(Self.quoted(name)); productName = \(Self.quoted(name)); productReference = \(product); productType = \"com.apple.product-type.in-app-purchase-content\"; }")
        let project = objects.add("Project object", "{isa = PBXProject; attributes = {LastUpgradeCheck = 1250; }; buildConfigurationList = \(projectConfigurations); compatibilityVersion = \"Xcode 12.0\"; developmentRegion = en; hasScannedForEncodings = 0; knownRegions = (en, Base, ); mainGroup = \(mainGroup); productRefGroup = \(productsGroup); projectDirPath = \"\"; projectRoot = \"\"; targets = (\(target), ); }")
        let text = """
            // !$*UTF8*$!
            {
            \tarchiveVersion = 1;
            \tclasses = {
            \t};
            \tobjectVersion = 54;
            \tobjects = {
            \(objects.lines.joined(separator: "\n"))
            \t};
            \trootObject = \(project) /* Project object */;
            }

            """
        try Data(text.utf8).write(to: bundle.appendingPathComponent("project.pbxproj"))
    }

    /// A value quoted as Xcode quotes it (only when it holds characters outside the bare set).
    static func quoted(_ value: String) -> String {
        let bare = value.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "_$+/:.-".unicodeScalars.contains($0) }
        if bare, !value.isEmpty, value.unicodeScalars.allSatisfy(\.isASCII) { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Object lines with 24-hex-digit identifiers, as Xcode writes them.
    struct Objects {
        var lines: [String] = []
        private var counter = 0

        /// Adds an object; returns its identifier.
        mutating func add(_ comment: String, _ body: String) -> String {
            counter += 1
            let id = String(format: "A1B2C3D4E5F6%012X", counter)
            lines.append("\t\t\(id) /* \(comment) */ = \(body);")
            return id
        }
    }
}
