/// The params of each method, by name; decoding them checks what a client sent.
enum MethodParams {
    /// `add`.
    struct Add: Decodable, Sendable {
        var transactionID: String
        var productID: String
    }

    /// Methods about one product: `pause`, `resume`, `cancel`, `start`, `content`, `delete`, `verify`, `repair`,
    /// `packs`.
    struct Product: Decodable, Sendable {
        var productID: String
    }

    /// `finish`.
    struct Finish: Decodable, Sendable {
        var transactionID: String
        /// Cancel the downloads still in flight first (StoreKit's behaviour).
        var cancelDownloads: Bool?
    }

    /// `restore`: from the history, or from a signed entitlements document.
    struct Restore: Decodable, Sendable {
        /// URL or path of the signed entitlements document.
        var entitlements: String?
    }

    /// `requestPacks`: packs of an installed product to install in one download.
    struct RequestPacks: Decodable, Sendable {
        var productID: String
        var packs: [String]
    }

    /// `changeSelection`: packs to add and remove, and the device's values on the axes to switch
    /// (`{"language": ["fr"]}`), in one change.
    struct ChangeSelection: Decodable, Sendable {
        var productID: String
        var packs: [String]?
        var remove: [String]?
        var select: [String: [String]]?
    }

    /// Methods without params: anything sent is ignored as long as it is an object.
    struct None: Decodable, Sendable {}
}
