public import Foundation

/// Apple's three shapes of hosted content, built from a content folder, for import tests: the folder an
/// Xcode In-App Purchase Content target builds, the Xcode project that builds it, and the package
/// `productbuild --content` writes.
///
/// Where each fact comes from:
/// - Built target (swift-build `DarwinPackageTypes.xcspec`, `com.apple.package-type.in-app-purchase-content`):
///   `<Name>/ContentInfo.plist` + `<Name>/Contents/…`, localized resources in `Contents/<lang>.lproj/`.
/// - Project: `project.pbxproj` as Xcode writes it (old-style plist, `// !$*UTF8*$!` first line, `/* … */`
///   section and name comments); the target's `productType` is `com.apple.product-type.in-app-purchase-content`.
/// - Package (deploymenttheory/go-macos-pkg `pkg/flatpkg/product.go`, `packageinfo.go`, `build.go`): a xar with
///   `Distribution` first, then the component folder `<name>.pkg/` (named after the content folder, identifier
///   the same name, version "0") holding `PackageInfo`, `Bom` and `Payload` (gzip'd odc cpio whose root is the
///   content folder: `.`, `./ContentInfo.plist`, `./Contents/…`); `installKBytes` is every payload entry
///   but the root rounded up to 512-byte blocks, summed and rounded up to KiB; `numberOfFiles` counts the
///   payload's entries.
public enum AppleContentFixture {
    /// The `Distribution` productbuild embeds for one component (go-macos-pkg's synthesised, embedded form).
    public static func distribution(component: String, identifier: String, installKBytes: Int) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <installer-gui-script minSpecVersion="2">
            <pkg-ref id="\(identifier)">
                <bundle-version/>
            </pkg-ref>
            <options customize="never" require-scripts="false" hostArchitectures="x86_64,arm64"/>
            <choices-outline>
                <line choice="default">
                    <line choice="\(identifier)"/>
                </line>
            </choices-outline>
            <choice id="default"/>
            <choice id="\(identifier)" visible="false">
                <pkg-ref id="\(identifier)"/>
            </choice>
            <pkg-ref id="\(identifier)" version="0" onConclusion="none" installKBytes="\(installKBytes)" updateKBytes="0">#\(component)</pkg-ref>
        </installer-gui-script>
        """
    }

    /// A component's `PackageInfo` as pkgbuild writes it.
    public static func packageInfo(identifier: String, numberOfFiles: Int, installKBytes: Int) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <pkg-info overwrite-permissions="true" relocatable="false" identifier="\(identifier)" postinstall-action="none" \
        version="0" format-version="2" generator-version="InstallCmds-864 (23A344)" auth="root">
            <payload numberOfFiles="\(numberOfFiles)" installKBytes="\(installKBytes)"/>
            <bundle-version/>
            <upgrade-bundle/>
            <update-bundle/>
            <atomic-update-bundle/>
            <strict-identifier/>
            <relocate/>
        </pkg-info>
        """
    }

    /// The payload of a content folder: gzip'd odc cpio of `.`, `./ContentInfo.plist`, `./Contents/…` (sorted).
    public static func payload(of folder: URL) throws -> TestArchiveBuilder {
        var builder = TestArchiveBuilder(format: .cpioODC, gzip: true)
        builder.directory(".")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
        for path in paths {
            let url = folder.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                builder.directory("./" + path)
            } else {
                builder.file("./" + path, try Data(contentsOf: url))
            }
        }
        return builder
    }

    /// pkgbuild's `installKBytes` of a payload (regular files; folders counted as 0, the tightest bound).
    public static func installKBytes(_ payload: TestArchiveBuilder) -> Int {
        let blocks = payload.entries.filter { $0.type == 0o100000 }
            .reduce(Int64(0)) { $0 + (($1.size ?? Int64($1.data.count) + $1.zeroBytes) + 511) / 512 }
        return Int((blocks * 512 + 1023) / 1024)
    }

    /// The members of a product archive, in productbuild's order: `Distribution`, then the component.
    public static func productMembers(
        payload: Data, component: String, numberOfFiles: Int, installKBytes: Int
    ) -> [(name: String, data: Data?)] {
        let identifier = String(component.dropLast(4))
        return [
            ("Distribution", Data(distribution(component: component, identifier: identifier, installKBytes: installKBytes).utf8)),
            (component, nil),
            // The importer never reads the bill of materials; the member is here because productbuild writes one.
            ("\(component)/Bom", Data("BOMStore".utf8) + Data(count: 24)),
            ("\(component)/PackageInfo", Data(packageInfo(identifier: identifier, numberOfFiles: numberOfFiles, installKBytes: installKBytes).utf8)),
            ("\(component)/Payload", payload),
        ]
    }

    /// The package `productbuild --content <folder>` writes, as libarchive's xar writer stores it.
    public static func productArchive(of folder: URL) throws -> TestArchiveBuilder {
        let payload = try payload(of: folder)
        var xar = TestArchiveBuilder(format: .xar, zstd: false)
        for member in productMembers(
            payload: try payload.data(), component: folder.lastPathComponent + ".pkg",
            numberOfFiles: payload.entries.count, installKBytes: installKBytes(payload))
        {
            if let data = member.data { xar.file(member.name, data) } else { xar.directory(member.name) }
        }
        return xar
    }

    /// The same package written by ``XarBuilder`` around any payload and declarations (hostile packages);
    /// `payloadDeclaredSize` is the `Payload` size its table of contents declares (default: the true one).
    public static func handBuiltProductArchive(
        payload: Data, component: String = "Levels.pkg", numberOfFiles: Int, installKBytes: Int, payloadDeclaredSize: Int? = nil
    ) -> XarBuilder {
        var xar = XarBuilder()
        for member in productMembers(payload: payload, component: component, numberOfFiles: numberOfFiles, installKBytes: installKBytes) {
            guard let data = member.data else { xar.directory(member.name); continue }
            xar.file(member.name, data, declaredSize: member.name.hasSuffix("/Payload") ? payloadDeclaredSize : nil)
        }
        return xar
    }
}
