/// What an Xcode "In-App Purchase Content" target builds: `<Name>/ContentInfo.plist` + `<Name>/Contents/…`.
///
/// The product of swift-build's `com.apple.package-type.in-app-purchase-content` (`INFOPLIST_PATH =
/// $(WRAPPER_NAME)/ContentInfo.plist`, `CONTENTS_FOLDER_PATH = $(WRAPPER_NAME)/Contents`, localized
/// resources in `Contents/<lang>.lproj/`) is already a content folder: every entry is offered as it lies,
/// the root's other entries are refused as outside the layout.
enum BuiltTargetSource {
    /// Whether `folder` looks like a built target: it holds a `ContentInfo.plist`.
    static func matches(_ folder: [UInt8]) -> Bool {
        FolderWalker.status(of: folder + Array("/\(ContentInfo.fileName)".utf8)) != nil
    }

    /// Offers every entry below `folder` to `staging`, byte-wise sorted by path.
    static func read(_ folder: [UInt8], display: String, into staging: inout ImportStaging) throws(ImportError) {
        try DiskEntries.addTree(below: folder, at: [], origin: display, to: &staging)
    }
}
